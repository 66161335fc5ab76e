/// Finds the route for a method and path, or says why there is none: no route has the
/// path (404) or routes have it under other methods (405, with the methods to `Allow`).
/// `HEAD` is answered by the `GET` route; the transport drops the body.
public struct Router: Sendable {
    /// The outcome of a lookup.
    public enum Match: Sendable {
        /// A route answers; its path parameters are captured.
        case found(Route, parameters: [String: String])
        /// The path exists under other methods, listed for the `Allow` header.
        case methodNotAllowed(allowed: [String])
        /// No route has this path.
        case notFound
    }

    private let routes: [Route]

    /// Creates a router over `routes`, tried in order.
    public init(routes: [Route]) {
        self.routes = routes
    }

    /// Looks up `method` and `path`.
    public func match(method: String, path: String) -> Match {
        var segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        // "/v1/categories/" names the same resource as "/v1/categories"; "/v1//categories" none.
        if segments.last == "" { segments.removeLast() }
        guard path.hasPrefix("/"), !segments.contains(where: \.isEmpty) else { return .notFound }
        let lookupMethod = method == "HEAD" ? "GET" : method
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == lookupMethod { return .found(route, parameters: parameters) }
            allowed.append(route.method)
        }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains("GET") { allowed.append("HEAD") }
        allowed.append("OPTIONS")
        return .methodNotAllowed(allowed: allowed)
    }

    /// Every method the path answers to, for CORS preflights (empty when the path is unknown).
    public func methods(for path: String) -> [String] {
        switch match(method: "\u{0}", path: path) {
        case .methodNotAllowed(let allowed): return allowed
        case .found, .notFound: return []
        }
    }
}
