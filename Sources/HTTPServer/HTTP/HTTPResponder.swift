/// Anything that turns a request into a response: the application (router, errors, CORS)
/// implements it; the transport and in-process tests call it.
public protocol HTTPResponder: Sendable {
    /// Routes `request` without I/O, on the thread that read it: the answer when routing
    /// alone knows it (a probe, a preflight, a 404), or the matched handler's work. Every
    /// failure is already an error response.
    func route(_ request: HTTPRequest) -> Routed

    /// How the body of a request to `method` and `path` is received, asked when its head
    /// arrives; `nil`: in memory within the transport's limit, nothing checked first. The
    /// admission it carries answers in full (errors mapped, headers decorated).
    func reception(method: String, path: String) -> Reception?
}

/// What routing a request gives (see ``HTTPResponder/route(_:)``).
public enum Routed: Sendable {
    /// The response, known without running a handler that may do I/O.
    case answered(HTTPResponse)
    /// The matched handler's work, to run off the transport's thread.
    case handler(@Sendable () async -> HTTPResponse)
}

extension HTTPResponder {
    public func reception(method: String, path: String) -> Reception? { nil }

    /// Answers `request` as the transport would: checks its head when its route says so,
    /// routes it, then runs the handler when routing did not answer.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let admission = reception(method: request.method, path: request.path)?.admission,
           let refusal = try? await admission(request) {
            return refusal
        }
        switch route(request) {
        case .answered(let response): return response
        case .handler(let work): return await work()
        }
    }
}
