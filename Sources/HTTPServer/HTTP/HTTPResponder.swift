/// Anything that turns a request into a response: the application (router, errors, CORS)
/// implements it; the transport and in-process tests call it.
///
/// A request is matched once, when its head arrives (``match(method:path:)``); that match
/// decides how its body is received and, once it is, which handler answers it.
public protocol HTTPResponder: Sendable {
    /// The route for `method` and `path`, or why there is none. Without I/O.
    func match(method: String, path: String) -> RouteMatch

    /// How the body of a request so matched is received; `nil`: in memory within the
    /// transport's limit, nothing checked first. The admission it carries answers in full
    /// (errors mapped, headers decorated).
    func reception(for match: RouteMatch) -> Reception?

    /// Routes `request` by its `match` without I/O, on the thread that read it: the answer
    /// when routing alone knows it (a probe, a preflight, a 404), or the matched handler's
    /// work. Every failure is already an error response. What the access log needs is
    /// written to `log`.
    func route(_ request: HTTPRequest, _ match: RouteMatch, log: RequestLog) -> Routed
}

/// What routing a request gives (see ``HTTPResponder/route(_:_:log:)``).
public enum Routed: Sendable {
    /// The response, known without running a handler that may do I/O.
    case answered(HTTPResponse)
    /// The matched handler's work, to run off the transport's thread.
    case handler(@Sendable () async -> HTTPResponse)
}

/// A request's route as matched by its head: carried from the head to the handler.
public struct RouteMatch: Sendable {
    let outcome: Router.Match

    init(_ outcome: Router.Match) {
        self.outcome = outcome
    }

    /// The matched route's template, for the log and metrics; `nil` when none matched.
    public var template: String? {
        if case .found(let route, _) = outcome { return route.pattern.description }
        return nil
    }
}

extension HTTPResponder {
    /// Answers `request` as the transport would: matches it, checks its head when its
    /// route says so, routes it, then runs the handler when routing did not answer.
    public func respond(to request: HTTPRequest, log: RequestLog = RequestLog()) async -> HTTPResponse {
        let match = match(method: request.method, path: request.path)
        log.route = match.template
        if let admission = reception(for: match)?.admission, let refusal = try? await admission(request) {
            return refusal
        }
        switch route(request, match, log: log) {
        case .answered(let response): return response
        case .handler(let work): return await work()
        }
    }
}
