/// The request pipeline: a request matched once by its head, answered by routing alone
/// when it can be (a CORS preflight, a 404 or 405, a route that needs no I/O), else by its
/// route's handler inside the chain composed for it once, here: CORS headers, gzip, the
/// entity tag, the error mapping, then the product's middleware. The transport calls it;
/// tests call it directly.
public struct RoutingResponder: HTTPResponder {
    /// The mounted routes, as given.
    public let routes: [Route]
    private let router: Router
    private let cors: CORSPolicy
    private let errors: any ErrorMapping
    private let clients: ClientAddress

    /// Creates the pipeline over `routes`, each handler run inside the transport's steps
    /// and then `middleware` (first outermost), its errors answered by `errors`
    /// (``PlainErrors`` when `nil`); handlers' JSON answers are gzipped at `gzipLevel`
    /// (1–9) for clients that accept it, or never with 0. `trustedProxies` are believed
    /// about the client's address.
    public init(routes: [Route], cors: CORSPolicy, logger: Logger, gzipLevel: Int = 1, middleware: [any Middleware] = [],
                errors: (any ErrorMapping)? = nil, trustedProxies: [String] = []) {
        let errors = errors ?? PlainErrors(logger: logger)
        let compressed = (1...9).contains(gzipLevel)
        let chain: [any Middleware] = [CORSMiddleware(cors)] + (compressed ? [CompressionMiddleware(level: gzipLevel)] : [])
            + [EntityTagMiddleware(compressed: compressed), ErrorMiddleware(errors)] + middleware
        self.clients = ClientAddress(trustedProxies: trustedProxies)
        self.routes = routes
        self.router = Router(routes: routes.map { $0.wrapped(in: chain) })
        self.cors = cors
        self.errors = errors
    }

    public func match(method: String, path: String) -> RouteMatch {
        RouteMatch(router.match(method: method, path: path))
    }

    public func route(_ request: HTTPRequest, _ match: RouteMatch, log: RequestLog) -> Routed {
        let client = clients.address(of: request)
        log.client = client
        var response: HTTPResponse
        if cors.isPreflight(request) {
            let methods = Self.allowed(match.outcome)
            response = methods.isEmpty ? .notFound(request.path) : cors.preflight(request, methods: methods)
            cors.decorate(&response, for: request)
            return .answered(response)
        }
        switch match.outcome {
        case .found(let route, let parameters):
            var request = request
            request.pathParameters = parameters
            guard let immediate = route.immediate else {
                let context = RequestContext(route: route.pattern.description, client: client, log: log)
                let (handler, errors) = (route.handler, errors)
                return .handler { [request] in
                    // The chain maps every error itself (ErrorMiddleware); this is its backstop.
                    do { return try await handler(request, context) } catch { return errors.response(for: error, request: request) }
                }
            }
            response = immediate(request)
        case .methodNotAllowed(let allowed):
            response = request.method == "OPTIONS"
                ? HTTPResponse.empty(status: 204)
                : HTTPResponse.error(status: 405, code: TransportErrorCodes.methodNotAllowed, message: "\(request.method) is not allowed on \(request.path).")
            response.headers.add("Allow", allowed.joined(separator: ", "))
        case .notFound:
            response = .notFound(request.path)
        }
        cors.decorate(&response, for: request)
        return .answered(response)
    }

    public func reception(for match: RouteMatch) -> Reception? {
        guard case .found(let route, _) = match.outcome, var reception = route.reception else { return nil }
        if let admission = reception.admission {
            let (cors, errors) = (cors, errors)
            reception.admission = { request in
                var refusal: HTTPResponse
                do {
                    guard let answer = try await admission(request) else { return nil }
                    refusal = answer
                } catch {
                    refusal = errors.response(for: error, request: request)
                }
                cors.decorate(&refusal, for: request)
                return refusal
            }
        }
        return reception
    }

    /// The methods a path answers to, for a preflight.
    private static func allowed(_ outcome: Router.Match) -> [String] {
        switch outcome {
        case .found(let route, _): [route.method]
        case .methodNotAllowed(let allowed): allowed
        case .notFound: []
        }
    }
}
