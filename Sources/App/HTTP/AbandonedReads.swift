import Domain
import HTTPServer

/// Lets the database pool skip a read whose client has left (``RequestScope/clientHasLeft``):
/// only for GET and HEAD, which change nothing, so a step not run leaves nothing half
/// done. A write runs to its end whether or not anyone waits for its answer.
struct AbandonedReads: AppMiddleware {
    func respond(to request: HTTPRequest, context: AppContext, next: AppHandler) async throws -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return try await next(request, context) }
        var context = context
        context.scope.clientHasLeft = request.clientHasLeft
        return try await next(request, context)
    }
}
