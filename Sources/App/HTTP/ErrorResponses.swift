import Data
import Domain

/// The one place that turns thrown errors into HTTP answers. Domain and database errors
/// get stable codes; anything unexpected becomes a plain 500 whose detail goes only to
/// the log, tagged with the request id the client also sees.
struct ErrorResponses: Sendable {
    let logger: Logger

    func response(for error: any Error, request: HTTPRequest) -> HTTPResponse {
        switch error {
        case let error as APIError:
            return error.response
        case let error as DomainError:
            return response(for: error)
        case let error as PostgresError where error.code == .connectionFailure || error.code == .poolClosed:
            logger.warning("database unavailable", ["request_id": .string(request.requestID), "error": .string(error.description)])
            return .error(status: 503, code: "database_unavailable", message: "The database is not reachable; retry shortly.")
        default:
            logger.error("unhandled error", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return .error(status: 500, code: "internal_error", message: "An internal error occurred.")
        }
    }

    private func response(for error: DomainError) -> HTTPResponse {
        switch error {
        case .notFound(let kind):
            return .error(status: 404, code: "\(kind)_not_found", message: "The \(kind) does not exist.")
        case .invalid(let field, let message):
            return .error(status: 400, code: "invalid_input", message: message, field: field)
        case .conflict(let kind):
            return .error(status: 409, code: "\(kind).conflict", message: "The \(kind) already exists.")
        case .unavailable(let reason):
            logger.error("service unavailable", ["reason": .string(reason)])
            return .error(status: 503, code: "unavailable", message: "The service is not ready to answer this request.")
        }
    }
}
