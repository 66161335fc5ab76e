/// An error as an answer: its status, stable code, message, field and headers. Thrown by
/// handlers and decoders for input they reject before any use case runs, and what the
/// product's error mapping turns every error into, for each dialect to render.
public struct APIError: Error, Sendable, Equatable {
    /// The status code, e.g. 400.
    public let status: Int
    /// The stable machine-readable code, e.g. `invalid_parameter`.
    public let code: String
    /// A sentence for a developer reading the response.
    public let message: String
    /// The offending field or parameter, when there is one.
    public let field: String?
    /// Header fields the answer carries (`Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPHeaders

    public init(status: Int, code: String, message: String, field: String? = nil, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    /// The same answer with `value` in the header field `name`.
    public func with(_ name: String, _ value: String) -> APIError {
        var error = self
        error.headers.add(name, value)
        return error
    }

    /// 400 for a query or path parameter that does not parse.
    public static func invalidParameter(_ field: String, _ message: String) -> APIError {
        APIError(status: 400, code: TransportErrorCodes.invalidParameter, message: message, field: field)
    }

    /// 400 for a body that is not the JSON the endpoint expects.
    public static func invalidBody(_ message: String, field: String? = nil) -> APIError {
        APIError(status: 400, code: TransportErrorCodes.invalidBody, message: message, field: field)
    }

    /// The error's response in the server's own shape (`{"error", "message", "field"}`).
    public var response: HTTPResponse {
        var response = HTTPResponse.error(status: status, code: code, message: message, field: field)
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}
