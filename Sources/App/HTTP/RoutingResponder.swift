/// The application's request pipeline: CORS preflights, routing (404/405), the handler,
/// error mapping and CORS headers. The transport calls it; tests call it directly.
public struct RoutingResponder: HTTPResponder {
    private let router: Router
    private let cors: CORSPolicy
    private let errors: ErrorResponses

    /// Creates the pipeline over `routes`.
    public init(routes: [Route], cors: CORSPolicy, logger: Logger) {
        self.router = Router(routes: routes)
        self.cors = cors
        self.errors = ErrorResponses(logger: logger)
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var response: HTTPResponse
        switch outcome(request) {
        case .ready(let ready):
            response = ready
        case .handler(let handler, let request):
            do {
                response = try await handler(request)
            } catch {
                response = errors.response(for: error, request: request)
            }
        }
        cors.decorate(&response, for: request)
        return response
    }

    public func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        guard case .ready(var response) = outcome(request) else { return nil }
        cors.decorate(&response, for: request)
        return response
    }

    private enum Outcome {
        /// Known without running a handler that may do I/O.
        case ready(HTTPResponse)
        /// The matched handler and the request with its path parameters.
        case handler(Route.Handler, HTTPRequest)
    }

    private func outcome(_ request: HTTPRequest) -> Outcome {
        if cors.isPreflight(request) {
            let methods = router.methods(for: request.path)
            return .ready(methods.isEmpty
                ? .error(status: 404, code: "not_found", message: "No resource at \(request.path).")
                : cors.preflight(request, methods: methods))
        }
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            return .ready(.error(status: 404, code: "not_found", message: "No resource at \(request.path)."))
        case .methodNotAllowed(let allowed):
            var response = request.method == "OPTIONS"
                ? HTTPResponse.empty(status: 204)
                : HTTPResponse.error(status: 405, code: "method_not_allowed", message: "\(request.method) is not allowed on \(request.path).")
            response.headers.add("Allow", allowed.joined(separator: ", "))
            return .ready(response)
        case .found(let route, let parameters):
            var request = request
            request.pathParameters = parameters
            if let immediate = route.immediate { return .ready(immediate(request)) }
            return .handler(route.handler, request)
        }
    }
}
