/// Anything that turns a request into a response: the application (router, errors, CORS)
/// implements it; the transport and in-process tests call it.
public protocol HTTPResponder: Sendable {
    /// Routes `request` without I/O, on the thread that read it: the answer when routing
    /// alone knows it (a probe, a preflight, a 404), or the matched handler's work. Every
    /// failure is already an error response.
    func route(_ request: HTTPRequest) -> Routed
}

/// What routing a request gives (see ``HTTPResponder/route(_:)``).
public enum Routed: Sendable {
    /// The response, known without running a handler that may do I/O.
    case answered(HTTPResponse)
    /// The matched handler's work, to run off the transport's thread.
    case handler(@Sendable () async -> HTTPResponse)
}

extension HTTPResponder {
    /// Answers `request`: routes it, then runs the handler when routing did not answer.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch route(request) {
        case .answered(let response): return response
        case .handler(let work): return await work()
        }
    }
}
