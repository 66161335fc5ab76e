import HTTPServer

/// Every error code the product's API answers with, in one place: what `openapi.yaml`'s
/// error bodies name and clients switch on. The transport's own (`not_found`,
/// `method_not_allowed`, `body_too_large`, `invalid_parameter`, `invalid_body`, …) are
/// the transport's; the Supabase surface renders these in its originals' words
/// (``SupabaseErrorCodes``). A code is never written inline elsewhere: a test reads the
/// sources.
enum ErrorCodes {
    // Input
    static let invalidInput = "invalid_input"
    static let invalidParameter = TransportErrorCodes.invalidParameter
    static let missingRequiredField = "missing_required_field"
    static let noFieldsToUpdate = "no_fields_to_update"
    static let invalidFilter = "invalid_filter"
    static let tooManyRows = "too_many_rows"
    static let tooManyIDs = "too_many_ids"
    static let idempotencyKeyInUse = "idempotency_key_in_use"
    static let idempotencyKeyReused = "idempotency_key_reused"
    // Uploads and media
    static let missingFile = "missing_file"
    static let invalidMultipart = "invalid_multipart"
    static let fileTooLarge = "file_too_large"
    static let unsupportedMediaType = "unsupported_media_type"
    static let uploadRateLimited = "upload_rate_limited"
    static let uploadQuotaExceeded = "upload_quota_exceeded"
    static let insufficientStorage = TransportErrorCodes.insufficientStorage
    static let rangeNotSatisfiable = "range_not_satisfiable"
    // Authentication
    static let missingToken = "missing_token"
    static let invalidToken = "invalid_token"
    static let tokenExpired = "token_expired"
    static let sessionRevoked = "session_revoked"
    static let refreshTokenReused = "refresh_token_reused"
    static let refreshTokenNotFound = "refresh_token_not_found"
    static let invalidCredentials = "invalid_credentials"
    static let invalidAPIKey = "invalid_api_key"
    static let emailTaken = "email_taken"
    static let identityExists = "identity_exists"
    static let alreadyPermanent = "already_permanent"
    static let loginRequired = "login_required"
    static let providerDisabled = "provider_disabled"
    static let rateLimited = "rate_limited"
    static let forbidden = "forbidden"
    // The service
    static let databaseBusy = "database_busy"
    static let databaseUnavailable = "database_unavailable"
    static let queryTimeout = "query_timeout"
    static let clientGone = "client_gone"
    static let revocationsUnavailable = "revocations_unavailable"
    static let unavailable = "unavailable"
    static let busy = "busy"
    static let starting = "starting"
    static let internalError = TransportErrorCodes.internalError

    /// `<kind>_not_found`: the thing named does not exist (`post_not_found`).
    static func notFound(_ kind: String) -> String { "\(kind)_not_found" }
    /// `<kind>.conflict`: the thing already exists (`influencer.conflict`, the edge
    /// functions' own spelling, which the app reads).
    static func conflict(_ kind: String) -> String { "\(kind).conflict" }
    /// `<kind>_limit`: an account's limit of things is reached.
    static func limit(_ kind: String) -> String { "\(kind)_limit" }
}
