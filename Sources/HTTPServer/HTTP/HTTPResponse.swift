import Foundation

/// An HTTP response. Bodies are JSON; the factories set the content type.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields; the transport adds `Content-Length`, `Date` and `X-Request-Id`.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Data
    /// A body sent from a file instead of ``body`` (media): the transport reads it from
    /// the file as it sends, without a copy in memory.
    public var file: ResponseFile?
    /// The error body's code (what the body says, for metrics and the log without parsing
    /// it again); `nil` for answers that are not errors.
    public var errorCode: String?

    /// The content type of every body this server sends.
    public static let jsonContentType = "application/json; charset=utf-8"

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
        self.file = nil
    }

    /// A JSON response with `value` as its body.
    @inlinable public static func json(_ value: some JSONWritable, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", jsonContentType)]), body: JSONWriter.encode(value))
    }

    /// A response with no body (204, or 200 to a preflight).
    public static func empty(status: Int = 204) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    /// 404 `not_found`: nothing is at `path`.
    public static func notFound(_ path: String) -> HTTPResponse {
        .error(status: 404, code: TransportErrorCodes.notFound, message: "No resource at \(path).")
    }

    /// The error body `{"error": code, "message": text, "field"?: name}` with `status`.
    public static func error(status: Int, code: String, message: String, field: String? = nil) -> HTTPResponse {
        var response = json(ErrorBody(error: code, message: message, field: field), status: status)
        response.errorCode = code
        return response
    }
}

/// A stretch of a file sent as a response body.
public struct ResponseFile: Sendable, Equatable {
    /// The file.
    public let path: String
    /// Where the stretch starts.
    public let offset: Int
    /// How many bytes it has.
    public let length: Int

    public init(path: String, offset: Int, length: Int) {
        self.path = path
        self.offset = offset
        self.length = length
    }
}

/// The wire shape of every error (`field` only when a field is at fault).
public struct ErrorBody: JSONWritable, Sendable {
    public let error: String
    public let message: String
    public let field: String?

    public func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("error", error)
            json.field("message", message)
            if let field { json.field("field", field) }
        }
    }
}

/// The JSON decoder every handler uses for request bodies, configured once.
public enum JSON {
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
