/// The request pipeline: CORS preflights, routing (404/405), the handler inside its
/// ``Middleware``, error mapping, ETag and gzip, CORS headers. The transport calls it;
/// tests call it directly.
public struct RoutingResponder: HTTPResponder {
    /// The mounted routes, as given.
    public let routes: [Route]
    private let router: Router
    private let cors: CORSPolicy
    private let errors: any ErrorMapping
    private let gzip: GzipEncoders?
    private let clients: ClientAddress

    /// Creates the pipeline over `routes`, each handler run inside `middleware` (first
    /// outermost) and its errors answered by `errors` (``PlainErrors`` when `nil`);
    /// handlers' JSON answers are gzipped at `gzipLevel` (1–9) for clients that accept
    /// it, or never with 0. `trustedProxies` are believed about the client's address in
    /// the access log.
    public init(routes: [Route], cors: CORSPolicy, logger: Logger, gzipLevel: Int = 1, middleware: [any Middleware] = [],
                errors: (any ErrorMapping)? = nil, trustedProxies: [String] = []) {
        self.clients = ClientAddress(trustedProxies: trustedProxies)
        self.routes = routes
        self.router = Router(routes: routes.map { $0.wrapped(in: middleware) })
        self.cors = cors
        self.errors = errors ?? PlainErrors(logger: logger)
        self.gzip = (1...9).contains(gzipLevel) ? GzipEncoders(level: Int32(gzipLevel)) : nil
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
                let template = route.pattern.description
                if let immediate = route.immediate {
                    response = immediate(request)
                    response.route = template
                } else {
                    let (cors, errors, gzip, handler, client) = (cors, errors, gzip, route.handler, clients.address(of: request))
                    return .handler { [request] in
                        var response: HTTPResponse
                        do {
                            response = try await handler(request)
                        } catch {
                            response = errors.response(for: error, request: request)
                        }
                        response.route = template
                        response.client = client
                        if let gzip {
                            let coding = ContentCoding.decide(request, response)
                            EntityTag.apply(&response, for: request, weak: coding.gzip)
                            ContentCoding.apply(coding, to: &response, encoders: gzip)
                        } else {
                            EntityTag.apply(&response, for: request)
                        }
                        cors.decorate(&response, for: request)
                        return response
                    }
                }
            }
        }
        cors.decorate(&response, for: request)
        response.client = clients.address(of: request)
        return .answered(response)
    }

    public func reception(method: String, path: String) -> Reception? {
        // Reads carry no body worth a check: skip the lookup on the hot path.
        guard method != "GET", method != "HEAD", method != "OPTIONS",
              case .found(let route, _) = router.match(method: method, path: path), var reception = route.reception else { return nil }
        if let admission = reception.admission {
            let (cors, errors, template) = (cors, errors, route.pattern.description)
            reception.admission = { request in
                var refusal: HTTPResponse
                do {
                    guard let answer = try await admission(request) else { return nil }
                    refusal = answer
                } catch {
                    refusal = errors.response(for: error, request: request)
                }
                refusal.route = template
                cors.decorate(&refusal, for: request)
                return refusal
            }
        }
        return reception
    }

    private static func notFound(_ request: HTTPRequest) -> HTTPResponse {
        .error(status: 404, code: "not_found", message: "No resource at \(request.path).")
    }
}
