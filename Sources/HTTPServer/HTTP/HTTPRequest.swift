import Foundation

/// A complete HTTP request as the transport hands it to the application: the body has been
/// read (within the configured limit) and the query string decoded.
public struct HTTPRequest: Sendable {
    /// Upper-case method, e.g. `GET`.
    public var method: String
    /// The decoded path without the query string, e.g. `/v1/posts/12`.
    public var path: String
    /// Decoded query parameters; the last value wins when a name repeats.
    public var query: [String: String]
    /// Request header fields.
    public var headers: HTTPHeaders
    /// The request body (empty when none was sent, or when it was spooled).
    public var body: Data
    /// The body, on routes whose bodies the transport writes to a file.
    public var bodyFile: SpooledFile?
    /// Values captured by `{name}` segments of the matched route.
    public var pathParameters: [String: String]
    /// The client's `X-Request-Id`, or one the transport generated.
    public var requestID: String
    /// The socket peer's address, when known.
    public var remoteAddress: String?
    /// Whether the client has closed its connection while the request is being answered
    /// (a non-blocking peek of the socket; always `false` for a request made without one).
    public var clientHasLeft: @Sendable () -> Bool = { false }

    /// Creates a request; tests use it to call the application without a socket.
    public init(
        method: String,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(),
        requestID: String = RequestID.generate(),
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyFile = nil
        self.pathParameters = [:]
        self.requestID = requestID
        self.remoteAddress = remoteAddress
    }
}

/// Request identifiers: the client's own when it is sane, otherwise a fresh random one.
public enum RequestID {
    /// Accepts 1–128 visible ASCII characters, so a client cannot inject log lines.
    public static func accept(_ candidate: String?) -> String? {
        guard let candidate, (1...128).contains(candidate.utf8.count),
              candidate.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return candidate
    }

    /// 16 random bytes as 32 hex characters.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
