import Domain
import HTTPServer

/// Builds routes whose handlers receive the authenticated caller. A handler declared with
/// ``permanent(_:_:_:)`` receives a ``PermanentPrincipal``, so it cannot run for an
/// anonymous caller: forgetting the check does not compile.
struct AuthenticatedRoutes: Sendable {
    let authenticator: Authenticator

    /// A route for any signed-in caller, anonymous or not.
    func route(_ method: String, _ path: String, _ handler: @escaping @Sendable (HTTPRequest, Principal) async throws -> HTTPResponse) -> Route {
        Route(method, path) { [authenticator] request in
            let principal = try authenticator.principal(for: request)
            var response = try await handler(request, principal)
            response.user = principal.userID.description
            return response
        }
    }

    /// A route for permanent users only; anonymous callers get 403 `login_required`.
    func permanent(_ method: String, _ path: String, _ handler: @escaping @Sendable (HTTPRequest, PermanentPrincipal) async throws -> HTTPResponse) -> Route {
        Route(method, path) { [authenticator] request in
            let user = try authenticator.principal(for: request).permanent()
            var response = try await handler(request, user)
            response.user = user.userID.description
            return response
        }
    }
}
