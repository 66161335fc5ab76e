/// Anything that turns a request into a response: the application (router, errors, CORS)
/// implements it; the transport and in-process tests call it.
public protocol HTTPResponder: Sendable {
    /// Answers `request`. Never throws: every failure is already an error response.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}
