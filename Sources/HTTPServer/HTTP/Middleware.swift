/// A step around every matched handler: it may read or change the request, run the rest
/// of the chain with `next`, and read or change the answer (read-your-writes wraps the
/// handler in its replica choice and records the write after). The chain is composed once
/// per route when the responder is made, so a request pays one call per step, no
/// allocation.
public protocol Middleware: Sendable {
    func respond(to request: HTTPRequest, next: Route.Handler) async throws -> HTTPResponse
}

/// Turns what a handler threw into its answer. The product maps its own errors; the
/// transport knows only ``APIError`` and answers anything else 500, logged.
public protocol ErrorMapping: Sendable {
    func response(for error: any Error, request: HTTPRequest) -> HTTPResponse
}

/// The transport's own mapping: an ``APIError`` is its answer; anything else a 500 whose
/// detail goes only to the log, with the request id the client also sees.
public struct PlainErrors: ErrorMapping {
    public let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func response(for error: any Error, request: HTTPRequest) -> HTTPResponse {
        if let error = error as? APIError { return error.response }
        logger.error("unhandled error", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
        return .error(status: 500, code: "internal_error", message: "An internal error occurred.")
    }
}

extension Route {
    /// The same route with its handler run through `middleware`, first one outermost.
    public func wrapped(in middleware: [any Middleware]) -> Route {
        guard immediate == nil, !middleware.isEmpty else { return self }
        let handler = middleware.reversed().reduce(handler) { next, step in
            { request in try await step.respond(to: request, next: next) }
        }
        var route = Route(method, pattern.description, handler)
        route.reception = reception
        return route
    }
}
