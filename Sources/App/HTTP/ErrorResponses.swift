import Domain
import HTTPServer

/// The one place that turns thrown errors into HTTP answers. Domain and database errors
/// get stable codes; anything unexpected becomes a plain 500 whose detail goes only to
/// the log, tagged with the request id the client also sees.
public struct ErrorResponses: ErrorMapping {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func response(for error: any Error, request: HTTPRequest) -> HTTPResponse {
        switch error {
        case let error as APIError:
            return error.response
        case let error as DomainError:
            return response(for: error)
        case let error as AuthError:
            return response(for: error)
        case let error as MediaError:
            return response(for: error)
        case let error as any StoreError where error.unavailable == .busy:
            logger.warning("database busy", ["request_id": .string(request.requestID)])
            var response = HTTPResponse.error(status: 503, code: "database_busy", message: "The server is overloaded; retry shortly.")
            response.headers.add("Retry-After", "1")
            return response
        case let error as any StoreError where error.unavailable == .timedOut:
            logger.warning("statement timeout", ["request_id": .string(request.requestID), "path": .string(request.path)])
            var response = HTTPResponse.error(status: 503, code: "query_timeout", message: "The request took too long and was stopped; narrow it or retry shortly.")
            response.headers.add("Retry-After", "1")
            return response
        case let error as any StoreError where error.unavailable == .clientGone:
            // Nobody reads it (the connection is closed); the access log records 499, as
            // nginx names a request its client closed.
            return .error(status: 499, code: "client_gone", message: "The client closed the connection before the answer.")
        case let error as any StoreError where error.unavailable == .unreachable:
            logger.warning("database unavailable", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return .error(status: 503, code: "database_unavailable", message: "The database is not reachable; retry shortly.")
        default:
            logger.error("unhandled error", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return .error(status: 500, code: "internal_error", message: "An internal error occurred.")
        }
    }

    private func response(for error: AuthError) -> HTTPResponse {
        switch error {
        case .missingToken: return unauthorized("missing_token", "An access token is required: send Authorization: Bearer <token>.")
        case .invalidToken(let reason): return unauthorized("invalid_token", "The token is not valid: \(reason).")
        case .tokenExpired: return unauthorized("token_expired", "The access token has expired; refresh it.")
        case .sessionRevoked: return unauthorized("session_revoked", "The session has ended; sign in again.")
        case .refreshTokenReused: return unauthorized("refresh_token_reused", "The refresh token was already used; the session is revoked.")
        case .invalidCredentials: return .error(status: 400, code: "invalid_credentials", message: "The email or password is wrong.")
        case .emailTaken: return .error(status: 409, code: "email_taken", message: "An account with this email already exists.", field: "email")
        case .identityExists: return .error(status: 409, code: "identity_exists", message: "This identity belongs to another account; send \"merge\": true to move into it.")
        case .alreadyPermanent: return .error(status: 400, code: "already_permanent", message: "The account is already permanent.")
        case .loginRequired: return .error(status: 403, code: "login_required", message: "Sign in with a permanent account to do this.")
        case .providerDisabled(let provider): return .error(status: 400, code: "provider_disabled", message: "Sign-in with \(provider.rawValue) is not configured.", field: "provider")
        case .rateLimited(let seconds):
            var response = HTTPResponse.error(status: 429, code: "rate_limited", message: "Too many attempts; retry in \(seconds) seconds.")
            response.headers.add("Retry-After", String(seconds))
            return response
        case .revocationsUnavailable:
            logger.warning("write refused: the revocation poll is behind")
            var response = HTTPResponse.error(status: 503, code: "revocations_unavailable",
                                              message: "Sign-outs made elsewhere cannot be checked right now; retry in a moment.")
            response.headers.add("Retry-After", "1")
            return response
        }
    }

    private func response(for error: MediaError) -> HTTPResponse {
        var response: HTTPResponse
        switch error {
        case .unsupportedType:
            return .error(status: 415, code: "unsupported_media_type", message: "The file is not a JPEG, PNG, HEIC or WebP image.", field: "file")
        case .rateLimited(let seconds):
            response = .error(status: 429, code: "upload_rate_limited", message: "Too many uploads from this account; retry in \(seconds) seconds.")
            response.headers.add("Retry-After", String(seconds))
        case .quotaExceeded(let seconds):
            response = .error(status: 429, code: "upload_quota_exceeded", message: "This account's upload quota for the day is used up; retry in \(seconds) seconds.")
            response.headers.add("Retry-After", String(seconds))
        case .storageFull:
            response = .error(status: 507, code: "insufficient_storage", message: "The server has no room for uploads right now; retry later.")
            response.headers.add("Retry-After", "600")
        }
        return response
    }

    /// 401 with the reason in the body and in `WWW-Authenticate` (RFC 6750).
    private func unauthorized(_ code: String, _ message: String) -> HTTPResponse {
        var response = HTTPResponse.error(status: 401, code: code, message: message)
        response.headers.add("WWW-Authenticate", "Bearer realm=\"market09\", error=\"\(code)\", error_description=\"\(message.replacingOccurrences(of: "\"", with: "'"))\"")
        return response
    }

    private func response(for error: DomainError) -> HTTPResponse {
        switch error {
        case .notFound(let kind):
            return .error(status: 404, code: "\(kind)_not_found", message: "The \(kind) does not exist.")
        case .invalid(let field, let message):
            return .error(status: 400, code: "invalid_input", message: message, field: field)
        case .conflict(let kind):
            return .error(status: 409, code: "\(kind).conflict", message: "The \(kind) already exists.")
        case .limitReached(let kind, let message):
            return .error(status: 409, code: "\(kind)_limit", message: message)
        case .forbidden(let message):
            return .error(status: 403, code: "forbidden", message: message)
        case .unavailable(let reason):
            logger.error("service unavailable", ["reason": .string(reason)])
            return .error(status: 503, code: "unavailable", message: "The service is not ready to answer this request.")
        case .overloaded(let seconds):
            var response = HTTPResponse.error(status: 503, code: "busy", message: "The server is busy with this kind of request; retry in \(seconds) seconds.")
            response.headers.add("Retry-After", String(seconds))
            return response
        }
    }
}
