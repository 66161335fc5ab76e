/// A step around every matched handler: it may read or change the request, run the rest
/// of the chain with `next`, and read or change the answer. The chain is composed once
/// per route when the responder is made (``Route/wrapped(in:)``), so a request pays one
/// call per step, no allocation. The transport's own steps (``CORSMiddleware``,
/// ``CompressionMiddleware``, ``EntityTagMiddleware``, ``ErrorMiddleware``) come first; the
/// product's follow.
public protocol Middleware: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext, next: Route.Handler) async throws -> HTTPResponse
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
        return .error(status: 500, code: TransportErrorCodes.internalError, message: "An internal error occurred.")
    }
}

/// What the rest of the chain throws, answered through the mapping: past this step a
/// request always has a response.
public struct ErrorMiddleware: Middleware {
    let errors: any ErrorMapping

    public init(_ errors: any ErrorMapping) {
        self.errors = errors
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: Route.Handler) async throws -> HTTPResponse {
        do {
            return try await next(request, context)
        } catch {
            return errors.response(for: error, request: request)
        }
    }
}

/// The cross-origin headers on every answer of a route (``CORSPolicy/decorate(_:for:)``).
public struct CORSMiddleware: Middleware {
    let policy: CORSPolicy

    public init(_ policy: CORSPolicy) {
        self.policy = policy
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: Route.Handler) async throws -> HTTPResponse {
        var response = try await next(request, context)
        policy.decorate(&response, for: request)
        return response
    }
}

/// A JSON answer gzipped for a client that accepts it (``ContentCoding``).
public struct CompressionMiddleware: Middleware {
    let encoders: GzipEncoders

    /// Gzip at `level` (1–9).
    public init(level: Int) {
        encoders = GzipEncoders(level: Int32(level))
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: Route.Handler) async throws -> HTTPResponse {
        var response = try await next(request, context)
        ContentCoding.apply(ContentCoding.decide(request, response), to: &response, encoders: encoders)
        return response
    }
}

/// An `ETag` on every cacheable answer, and `304` to a client that holds it
/// (``EntityTag``). Weak when the answer will be gzipped: the bytes sent then differ.
public struct EntityTagMiddleware: Middleware {
    /// Whether a ``CompressionMiddleware`` runs outside this step.
    let compressed: Bool

    public init(compressed: Bool) {
        self.compressed = compressed
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: Route.Handler) async throws -> HTTPResponse {
        var response = try await next(request, context)
        let coding = compressed ? ContentCoding.decide(request, response) : nil
        EntityTag.apply(&response, for: request, weak: coding?.gzip == true)
        // A 304 is no longer compressible: it still varies by encoding, as its 200 would.
        if coding?.compressible == true && response.status == 304 { response.headers.add("Vary", "Accept-Encoding") }
        return response
    }
}

extension Route {
    /// The same route with its handler run through `middleware`, first one outermost.
    public func wrapped(in middleware: [any Middleware]) -> Route {
        guard immediate == nil, !middleware.isEmpty else { return self }
        let handler = middleware.reversed().reduce(handler) { next, step in
            { request, context in try await step.respond(to: request, context: context, next: next) }
        }
        var route = Route(method, pattern.description, handler)
        route.reception = reception
        return route
    }
}
