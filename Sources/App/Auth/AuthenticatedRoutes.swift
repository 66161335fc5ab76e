import Domain
import HTTPServer

/// Builds routes whose handlers receive the authenticated caller. A handler declared with
/// ``permanent(_:_:_:)`` receives a ``PermanentPrincipal``, so it cannot run for an
/// anonymous caller: forgetting the check does not compile. The caller's id goes to the
/// access log through the context.
struct AuthenticatedRoutes: Sendable {
    let authenticator: Authenticator
    let endpoints: Endpoints

    /// A route for any signed-in caller, anonymous or not.
    func route(_ method: String, _ path: String,
               _ handler: @escaping @Sendable (HTTPRequest, AppContext, Principal) async throws -> HTTPResponse) -> Route {
        endpoints.route(method, path) { [authenticator] request, context in
            let principal = try authenticator.principal(for: request)
            context.transport.log.user = principal.userID.description
            return try await handler(request, context, principal)
        }
    }

    /// A route for permanent users only; anonymous callers get 403 `login_required`.
    func permanent(_ method: String, _ path: String,
                   _ handler: @escaping @Sendable (HTTPRequest, AppContext, PermanentPrincipal) async throws -> HTTPResponse) -> Route {
        endpoints.route(method, path) { [authenticator] request, context in
            let principal = try authenticator.principal(for: request)
            context.transport.log.user = principal.userID.description
            return try await handler(request, context, try principal.permanent())
        }
    }
}
