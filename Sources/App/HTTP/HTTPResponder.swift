/// Anything that turns a request into a response: the application (router, errors, CORS)
/// implements it; the transport and in-process tests call it.
public protocol HTTPResponder: Sendable {
    /// Answers `request`. Never throws: every failure is already an error response.
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The answer to `request` when it is known without I/O (a probe, a preflight, a 404),
    /// so the transport can send it from the thread that read the request; `nil` when
    /// ``respond(to:)`` must run.
    func respondImmediately(to request: HTTPRequest) -> HTTPResponse?
}

extension HTTPResponder {
    public func respondImmediately(to request: HTTPRequest) -> HTTPResponse? { nil }
}
