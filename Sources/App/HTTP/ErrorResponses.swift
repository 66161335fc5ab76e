import Domain
import HTTPServer
import Workers

/// The one place that turns thrown errors into answers: each error becomes an
/// ``APIError`` value (status, code from ``ErrorCodes``, message, field, headers) that
/// each dialect renders — `/v1` as `{"error", "message", "field"}` (``response(for:request:)``),
/// the Supabase surface in its originals' shapes (``SupabaseGate``). Anything unexpected
/// becomes a plain 500 whose detail goes only to the log, tagged with the request id the
/// client also sees.
public struct ErrorResponses: ErrorMapping {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func response(for error: any Error, request: HTTPRequest) -> HTTPResponse {
        answer(for: error, request: request).response
    }

    /// The answer to `error`, for any dialect to render.
    func answer(for error: any Error, request: HTTPRequest) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as DomainError:
            return answer(for: error)
        case let error as AuthError:
            return answer(for: error)
        case let error as MediaError:
            return answer(for: error)
        case let error as WorkersBusy:
            return answer(for: DomainError.overloaded(retryAfterSeconds: error.retryAfterSeconds))
        case let error as any StoreError where error.refusedValue != nil:
            return APIError(status: 400, code: ErrorCodes.invalidInput, message: error.refusedValue ?? "")
        case let error as any StoreError where error.unavailable == .busy:
            logger.warning("database busy", ["request_id": .string(request.requestID)])
            return APIError(status: 503, code: ErrorCodes.databaseBusy, message: "The server is overloaded; retry shortly.").with("Retry-After", "1")
        case let error as any StoreError where error.unavailable == .timedOut:
            logger.warning("statement timeout", ["request_id": .string(request.requestID), "path": .string(request.path)])
            return APIError(status: 503, code: ErrorCodes.queryTimeout, message: "The request took too long and was stopped; narrow it or retry shortly.")
                .with("Retry-After", "1")
        case let error as any StoreError where error.unavailable == .clientGone:
            // Nobody reads it (the connection is closed); the access log records 499, as
            // nginx names a request its client closed.
            return APIError(status: 499, code: ErrorCodes.clientGone, message: "The client closed the connection before the answer.")
        case let error as any StoreError where error.unavailable == .unreachable:
            logger.warning("database unavailable", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return APIError(status: 503, code: ErrorCodes.databaseUnavailable, message: "The database is not reachable; retry shortly.")
        default:
            logger.error("unhandled error", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return APIError(status: 500, code: ErrorCodes.internalError, message: "An internal error occurred.")
        }
    }

    private func answer(for error: AuthError) -> APIError {
        switch error {
        case .missingToken: return unauthorized(ErrorCodes.missingToken, "An access token is required: send Authorization: Bearer <token>.")
        case .invalidToken(let reason): return unauthorized(ErrorCodes.invalidToken, "The token is not valid: \(reason).")
        case .tokenExpired: return unauthorized(ErrorCodes.tokenExpired, "The access token has expired; refresh it.")
        case .sessionRevoked: return unauthorized(ErrorCodes.sessionRevoked, "The session has ended; sign in again.")
        case .refreshTokenReused: return unauthorized(ErrorCodes.refreshTokenReused, "The refresh token was already used; the session is revoked.")
        case .invalidCredentials: return APIError(status: 400, code: ErrorCodes.invalidCredentials, message: "The email or password is wrong.")
        case .emailTaken: return APIError(status: 409, code: ErrorCodes.emailTaken, message: "An account with this email already exists.", field: "email")
        case .identityExists:
            return APIError(status: 409, code: ErrorCodes.identityExists, message: "This identity belongs to another account; send \"merge\": true to move into it.")
        case .alreadyPermanent: return APIError(status: 400, code: ErrorCodes.alreadyPermanent, message: "The account is already permanent.")
        case .loginRequired: return APIError(status: 403, code: ErrorCodes.loginRequired, message: "Sign in with a permanent account to do this.")
        case .providerDisabled(let provider):
            return APIError(status: 400, code: ErrorCodes.providerDisabled, message: "Sign-in with \(provider.rawValue) is not configured.", field: "provider")
        case .rateLimited(let seconds):
            return APIError(status: 429, code: ErrorCodes.rateLimited, message: "Too many attempts; retry in \(seconds) seconds.").with("Retry-After", String(seconds))
        case .revocationsUnavailable:
            logger.warning("write refused: the revocation poll is behind")
            return APIError(status: 503, code: ErrorCodes.revocationsUnavailable,
                            message: "Sign-outs made elsewhere cannot be checked right now; retry in a moment.").with("Retry-After", "1")
        }
    }

    private func answer(for error: MediaError) -> APIError {
        switch error {
        case .unsupportedType:
            return APIError(status: 415, code: ErrorCodes.unsupportedMediaType, message: "The file is not a JPEG, PNG, HEIC or WebP image.", field: "file")
        case .rateLimited(let seconds):
            return APIError(status: 429, code: ErrorCodes.uploadRateLimited, message: "Too many uploads from this account; retry in \(seconds) seconds.")
                .with("Retry-After", String(seconds))
        case .quotaExceeded(let seconds):
            return APIError(status: 429, code: ErrorCodes.uploadQuotaExceeded, message: "This account's upload quota for the day is used up; retry in \(seconds) seconds.")
                .with("Retry-After", String(seconds))
        case .storageFull:
            return APIError(status: 507, code: ErrorCodes.insufficientStorage, message: "The server has no room for uploads right now; retry later.")
                .with("Retry-After", "600")
        }
    }

    /// 401 with the reason in the body and in `WWW-Authenticate` (RFC 6750).
    private func unauthorized(_ code: String, _ message: String) -> APIError {
        APIError(status: 401, code: code, message: message)
            .with("WWW-Authenticate", "Bearer realm=\"market09\", error=\"\(code)\", error_description=\"\(message.replacingOccurrences(of: "\"", with: "'"))\"")
    }

    private func answer(for error: DomainError) -> APIError {
        switch error {
        case .notFound(let kind):
            return APIError(status: 404, code: ErrorCodes.notFound(kind), message: "The \(kind) does not exist.")
        case .invalid(let field, let message):
            return APIError(status: 400, code: ErrorCodes.invalidInput, message: message, field: field)
        case .conflict(let kind):
            return APIError(status: 409, code: ErrorCodes.conflict(kind), message: "The \(kind) already exists.")
        case .limitReached(let kind, let message):
            return APIError(status: 409, code: ErrorCodes.limit(kind), message: message)
        case .forbidden(let message):
            return APIError(status: 403, code: ErrorCodes.forbidden, message: message)
        case .unavailable(let reason):
            logger.error("service unavailable", ["reason": .string(reason)])
            return APIError(status: 503, code: ErrorCodes.unavailable, message: "The service is not ready to answer this request.")
        case .starting(let message):
            return APIError(status: 503, code: ErrorCodes.starting, message: message).with("Retry-After", "5")
        case .overloaded(let seconds):
            return APIError(status: 503, code: ErrorCodes.busy, message: "The server is busy with this kind of request; retry in \(seconds) seconds.")
                .with("Retry-After", String(seconds))
        }
    }
}
