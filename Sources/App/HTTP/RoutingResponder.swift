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
        if cors.isPreflight(request) {
            let methods = router.methods(for: request.path)
            response = methods.isEmpty
                ? .error(status: 404, code: "not_found", message: "No resource at \(request.path).")
                : cors.preflight(request, methods: methods)
        } else {
            response = await route(request)
        }
        cors.decorate(&response, for: request)
        return response
    }

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            return .error(status: 404, code: "not_found", message: "No resource at \(request.path).")
        case .methodNotAllowed(let allowed):
            if request.method == "OPTIONS" {
                var response = HTTPResponse.empty(status: 204)
                response.headers.add("Allow", allowed.joined(separator: ", "))
                return response
            }
            var response = HTTPResponse.error(status: 405, code: "method_not_allowed", message: "\(request.method) is not allowed on \(request.path).")
            response.headers.add("Allow", allowed.joined(separator: ", "))
            return response
        case .found(let route, let parameters):
            var request = request
            request.pathParameters = parameters
            do {
                return try await route.handler(request)
            } catch {
                return errors.response(for: error, request: request)
            }
        }
    }
}
