/// A method, a path pattern and the handler that answers it. Features publish arrays of
/// routes; the application mounts them.
public struct Route: Sendable {
    /// Answers one matched request, with what the transport knows of it.
    public typealias Handler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

    /// Upper-case method, e.g. `GET`.
    public let method: String
    /// The path pattern, e.g. `/v1/posts/{id}`.
    public let pattern: RoutePattern
    public let handler: Handler
    /// For routes that need no I/O: the answer, computed on the engine thread that read
    /// the request (no task, no suspension of the connection).
    public let immediate: (@Sendable (HTTPRequest) -> HTTPResponse)?
    /// How the body is received and what checks the head first; `nil`: in memory, within
    /// the server's limit, no check before the handler.
    public var reception: Reception?

    /// Creates a route; `pattern` segments in braces capture path parameters.
    public init(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        self.method = method
        self.pattern = RoutePattern(pattern)
        self.handler = handler
        self.immediate = nil
        self.reception = nil
    }

    /// Creates a route whose answer needs no I/O and cannot fail.
    public init(immediate method: String, _ pattern: String, _ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.method = method
        self.pattern = RoutePattern(pattern)
        self.handler = { request, _ in answer(request) }
        self.immediate = answer
        self.reception = nil
    }
}

/// A path template split into literal and `{parameter}` segments.
public struct RoutePattern: Sendable, CustomStringConvertible {
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public let segments: [Segment]
    /// The template as written.
    public let description: String

    /// Parses a template such as `/v1/posts/{id}/like`.
    public init(_ template: String) {
        description = template
        segments = template.split(separator: "/").map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    /// The captured parameters when `pathSegments` fits the template, `nil` otherwise.
    public func match(_ pathSegments: [Substring]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, pathSegments) {
            switch segment {
            case .literal(let literal):
                guard literal == part else { return nil }
            case .parameter(let name):
                parameters[name] = String(part)
            }
        }
        return parameters
    }
}

extension Route {
    /// The same route with `prefix` (e.g. `/v1`) in front of its pattern.
    public func mounted(at prefix: String) -> Route {
        var route = immediate.map { Route(immediate: method, prefix + pattern.description, $0) } ?? Route(method, prefix + pattern.description, handler)
        route.reception = reception
        return route
    }
}
