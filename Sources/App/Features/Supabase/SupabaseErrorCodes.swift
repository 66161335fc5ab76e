import HTTPServer
/// Our error codes in the words of the services the 09Market app was built against. Each
/// function takes our answer (status, code, message) and returns the original's.
enum SupabaseErrorCodes {
    /// The edge functions' code for an action or method they do not know.
    static let badRequest = "bad_request"

    /// Supabase Auth (GoTrue) codes; its clients sign out on `session_not_found`,
    /// `refresh_token_not_found` and `refresh_token_already_used`, and show the message.
    static func auth(status: Int, code: String, message: String) -> (Int, String, String) {
        switch code {
        case "missing_token": return (401, "no_authorization", "This endpoint requires a valid Bearer token")
        case "invalid_token": return (403, "bad_jwt", "invalid JWT: \(message)")
        case "token_expired": return (403, "bad_jwt", "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired")
        case "session_revoked": return (403, "session_not_found", "Session from session_id claim in JWT does not exist")
        case "refresh_token_reused": return (400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
        case "refresh_token_not_found": return (400, code, "Invalid Refresh Token: Refresh Token Not Found")
        case "invalid_credentials": return (400, "invalid_credentials", "Invalid login credentials")
        case "email_taken": return (422, "user_already_exists", "User already registered")
        case "identity_exists": return (422, "identity_already_exists", "Identity is already linked to another user")
        case "already_permanent": return (422, "validation_failed", "Only an anonymous user's email and password can be set here")
        case "rate_limited": return (429, "over_request_rate_limit", "Request rate limit reached")
        case "provider_disabled": return (400, "provider_disabled", message)
        case "login_required": return (403, "not_admin", message)
        default:
            if status == 400 || code.hasPrefix("invalid_") { return (400, "validation_failed", message) }
            return (status, status >= 500 ? "unexpected_failure" : code, message)
        }
    }

    /// The edge functions' codes (`_shared/validation.ts`, `errorCodes.ts`, `upload`): the
    /// app reads the code of a 409 only (`influencer.conflict`, which we share); uploads
    /// answer every refusal with 400.
    static func functions(status: Int, code: String, message: String) -> (Int, String, String) {
        switch code {
        case "missing_token", "invalid_token", "token_expired", "session_revoked", "refresh_token_reused":
            return (401, "unauthorized", "Invalid or expired token")
        case "missing_file": return (400, "missing_required_field", "'file' is required")
        case "unsupported_media_type": return (400, "invalid_file_type", message)
        case "file_too_large": return (400, "file_too_large", message)
        case "invalid_multipart": return (400, badRequest, message)
        // `_shared/validation.ts`: a parameter that does not parse.
        case "invalid_parameter": return (400, "invalid_params", message)
        default: return (status, code, message)
        }
    }

    /// PostgREST's: row-level security refusals are 42501, a missing referenced row 23503
    /// (409), a bad filter PGRST100, JWT trouble PGRST301.
    static func postgrest(status: Int, code: String, message: String) -> (Int, String, String) {
        switch code {
        case "missing_token", "invalid_token", "token_expired", "session_revoked", "refresh_token_reused":
            return (401, "PGRST301", message)
        case "login_required", "forbidden": return (403, "42501", "new row violates row-level security policy for table \"likes\"")
        case "post_not_found": return (409, "23503", "insert or update on table \"likes\" violates foreign key constraint \"likes_post_id_fkey\"")
        default:
            if status == 400 { return (400, "PGRST100", message) }
            return (status, code, message)
        }
    }
}
