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

    public func route(_ request: HTTPRequest) -> Routed {
        var response: HTTPResponse
        if cors.isPreflight(request) {
            let methods = router.methods(for: request.path)
            response = methods.isEmpty ? Self.notFound(request) : cors.preflight(request, methods: methods)
        } else {
            switch router.match(method: request.method, path: request.path) {
            case .notFound:
                response = Self.notFound(request)
            case .methodNotAllowed(let allowed):
                response = request.method == "OPTIONS"
                    ? HTTPResponse.empty(status: 204)
                    : HTTPResponse.error(status: 405, code: "method_not_allowed", message: "\(request.method) is not allowed on \(request.path).")
                response.headers.add("Allow", allowed.joined(separator: ", "))
            case .found(let route, let parameters):
                var request = request
                request.pathParameters = parameters
                if let immediate = route.immediate {
                    response = immediate(request)
                } else {
                    let (cors, errors, handler) = (cors, errors, route.handler)
                    return .handler { [request] in
                        var response: HTTPResponse
                        do {
                            response = try await handler(request)
                        } catch {
                            response = errors.response(for: error, request: request)
                        }
                        EntityTag.apply(&response, for: request)
                        cors.decorate(&response, for: request)
                        return response
                    }
                }
            }
        }
        cors.decorate(&response, for: request)
        return .answered(response)
    }

    private static func notFound(_ request: HTTPRequest) -> HTTPResponse {
        .error(status: 404, code: "not_found", message: "No resource at \(request.path).")
    }
}
