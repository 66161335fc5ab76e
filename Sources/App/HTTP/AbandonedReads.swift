import HTTPServer
import Workers

/// Lets the database pool skip a read whose client has left (``ClientPresence``): only
/// for GET and HEAD, which change nothing, so a step not run leaves nothing half done. A
/// write runs to its end whether or not anyone waits for its answer.
struct AbandonedReads: Middleware {
    func respond(to request: HTTPRequest, next: Route.Handler) async throws -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return try await next(request) }
        return try await ClientPresence.$current.withValue(ClientPresence(hasLeft: request.clientHasLeft)) { try await next(request) }
    }
}
