/// An error that already knows its HTTP answer: thrown by handlers and decoders for
/// input they reject before any use case runs.
public struct APIError: Error, Sendable, Equatable {
    /// The status code, e.g. 400.
    public let status: Int
    /// The stable machine-readable code, e.g. `invalid_parameter`.
    public let code: String
    /// A sentence for a developer reading the response.
    public let message: String
    /// The offending field or parameter, when there is one.
    public let field: String?

    public init(status: Int, code: String, message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    /// 400 for a query or path parameter that does not parse.
    public static func invalidParameter(_ field: String, _ message: String) -> APIError {
        APIError(status: 400, code: "invalid_parameter", message: message, field: field)
    }

    /// 400 for a body that is not the JSON the endpoint expects.
    public static func invalidBody(_ message: String, field: String? = nil) -> APIError {
        APIError(status: 400, code: "invalid_body", message: message, field: field)
    }

    /// The error's response.
    public var response: HTTPResponse {
        .error(status: status, code: code, message: message, field: field)
    }
}
