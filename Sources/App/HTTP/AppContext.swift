import Domain
import HTTPServer

/// A request as the product's handlers see it: what the transport knows of it (route,
/// client, the access log's record) and what the product's middleware decided for it —
/// its ``RequestScope``, which every read it makes is scoped to (`.scoped(context.scope)`).
struct AppContext: Sendable {
    let transport: RequestContext
    /// Read-your-writes and the client's presence, for the stores the request reads.
    var scope = RequestScope()

    init(_ transport: RequestContext) {
        self.transport = transport
        scope.client = transport.client
    }
}

/// A product handler: the request and its context.
typealias AppHandler = @Sendable (HTTPRequest, AppContext) async throws -> HTTPResponse

/// A step of the product's own around its handlers (``AbandonedReads``,
/// ``ReadYourWrites``), after the transport's (errors, ETag, gzip, CORS): it may change
/// the context the rest of the chain sees.
protocol AppMiddleware: Sendable {
    func respond(to request: HTTPRequest, context: AppContext, next: AppHandler) async throws -> HTTPResponse
}

/// How the product's routes are made: each handler receives an ``AppContext`` that the
/// product's middleware builds, composed once per route here.
struct Endpoints: Sendable {
    let middleware: [any AppMiddleware]

    init(middleware: [any AppMiddleware] = []) {
        self.middleware = middleware
    }

    /// A route whose handler runs inside the product's middleware.
    func route(_ method: String, _ path: String, _ handler: @escaping AppHandler) -> Route {
        let chained = middleware.reversed().reduce(handler) { next, step in
            { request, context in try await step.respond(to: request, context: context, next: next) }
        }
        return Route(method, path) { request, transport in try await chained(request, AppContext(transport)) }
    }
}
