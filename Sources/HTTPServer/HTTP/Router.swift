/// Finds the route for a method and path, or says why there is none: no route has the
/// path (404) or routes have it under other methods (405, with the methods to `Allow`).
/// `HEAD` is answered by the `GET` route; the transport drops the body.
///
/// Routes are kept in a tree by path segment, so a lookup follows the path instead of
/// trying every route, and a literal segment wins over a capture whatever the order the
/// routes were given in: `/v1/posts/top10` is that resource under every method (a `PATCH`
/// is 405), not post "top10".
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

    private let root: Node
    /// The nodes of paths without captures, by the path as written (`/health`, `/v1/me`):
    /// one hash lookup instead of splitting the path (the split and the walk were 5 % of
    /// `/health`'s server CPU). The tree would find the same node: a literal wins.
    private let literalPaths: [String: Node]

    /// Creates a router over `routes`. Two routes for one method and path are a programming
    /// error.
    public init(routes: [Route]) {
        let root = Builder()
        for route in routes { root.add(route) }
        self.root = root.frozen()
        var literalPaths: [String: Node] = [:]
        func collect(_ node: Node, _ path: String) {
            if !node.routes.isEmpty { literalPaths[path.isEmpty ? "/" : path] = node }
            for (segment, next) in node.literals { collect(next, path + "/" + segment) }
        }
        collect(self.root, "")
        self.literalPaths = literalPaths
    }

    /// Looks up `method` and `path`.
    public func match(method: String, path: String) -> Match {
        let lookupMethod = method == "HEAD" ? "GET" : method
        if let node = literalPaths[path] {
            if let route = node.routes.first(where: { $0.method == lookupMethod }) { return .found(route, parameters: [:]) }
            return Self.methodNotAllowed(node)
        }
        var segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        // "/v1/categories/" names the same resource as "/v1/categories"; "/v1//categories" none.
        if segments.last == "" { segments.removeLast() }
        guard path.hasPrefix("/"), !segments.contains(where: \.isEmpty), let node = root.find(segments[...]) else { return .notFound }
        if let route = node.routes.first(where: { $0.method == lookupMethod }), let parameters = route.pattern.match(segments) {
            return .found(route, parameters: parameters)
        }
        return Self.methodNotAllowed(node)
    }

    private static func methodNotAllowed(_ node: Node) -> Match {
        var allowed = node.routes.map(\.method)
        if allowed.contains("GET") { allowed.append("HEAD") }
        allowed.append("OPTIONS")
        return .methodNotAllowed(allowed: allowed)
    }

    /// A path segment's routes and what may follow it.
    private struct Node: Sendable {
        public let literals: [String: Node]
        /// What follows a captured segment (at most one: routes capture by position, and
        /// each names its captures itself).
        public let capture: [Node]
        /// The routes ending here, in the order given (the order of `Allow`).
        public let routes: [Route]

        /// The node with routes that `segments` lead to: literal segments first, then the
        /// capture when the literal branch leads nowhere.
        public func find(_ segments: ArraySlice<Substring>) -> Node? {
            guard let first = segments.first else { return routes.isEmpty ? nil : self }
            let rest = segments.dropFirst()
            if let literal = literals[String(first)], let found = literal.find(rest) { return found }
            return capture.first?.find(rest)
        }
    }

    /// The tree while routes are added (used only by `init`).
    private final class Builder {
        public var literals: [String: Builder] = [:]
        public var capture: Builder?
        public var routes: [Route] = []

        public func add(_ route: Route) {
            var node = self
            for segment in route.pattern.segments {
                switch segment {
                case .literal(let text):
                    let next = node.literals[text] ?? Builder()
                    node.literals[text] = next
                    node = next
                case .parameter:
                    let next = node.capture ?? Builder()
                    node.capture = next
                    node = next
                }
            }
            precondition(!node.routes.contains { $0.method == route.method }, "two routes for \(route.method) \(route.pattern)")
            node.routes.append(route)
        }

        public func frozen() -> Node {
            Node(literals: literals.mapValues { $0.frozen() }, capture: capture.map { [$0.frozen()] } ?? [], routes: routes)
        }
    }
}
