import Foundation

/// An HTTP response. Bodies are JSON; the factories set the content type.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields; the transport adds `Content-Length`, `Date` and `X-Request-Id`.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Data

    /// The content type of every body this server sends.
    public static let jsonContentType = "application/json; charset=utf-8"

    /// Creates a response from raw parts.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response encoding `value`.
    public static func json(_ value: some Encodable, status: Int = 200) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", jsonContentType)]), body: try JSON.encoder.encode(value))
    }

    /// A response with no body (204, or 200 to a preflight).
    public static func empty(status: Int = 204) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    /// The error body `{"error": code, "message": text, "field"?: name}` with `status`.
    public static func error(status: Int, code: String, message: String, field: String? = nil) -> HTTPResponse {
        let body = ErrorBody(error: code, message: message, field: field)
        // Encoding three strings cannot fail; fall back to a fixed body rather than trap.
        let data = (try? JSON.encoder.encode(body)) ?? Data(#"{"error":"internal_error","message":"error body could not be encoded"}"#.utf8)
        return HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", jsonContentType)]), body: data)
    }
}

/// The wire shape of every error.
struct ErrorBody: Codable, Equatable {
    let error: String
    let message: String
    let field: String?
}

/// The JSON coders every handler uses, configured once.
enum JSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
