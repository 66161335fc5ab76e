import Foundation
import Synchronization

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

    /// 32 lower-case hex characters: SipHash (Swift's `Hasher`, keyed per process) of a
    /// process-wide counter and a key drawn once from the system. Unique within a process
    /// (the counter), unpredictable and not a count of our traffic to a client (a keyed
    /// PRF of it), and without a `getrandom(2)` per request: two of those and two `String`s
    /// were 5.8 % of `/health`'s server CPU in `perf`.
    public static func generate() -> String {
        let serial = counter.add(1, ordering: .relaxed).oldValue
        return String(unsafeUninitializedCapacity: 32) { buffer in
            write(hash(serial, 0), into: buffer, at: 0)
            write(hash(serial, 1), into: buffer, at: 16)
            return 32
        }
    }

    private static let counter = Atomic<UInt64>(0)
    /// Drawn once: with `SWIFT_DETERMINISTIC_HASHING` set, `Hasher` alone would repeat
    /// the same identifiers in every process.
    private static let key: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    private static func hash(_ serial: UInt64, _ half: UInt64) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(key.0)
        hasher.combine(key.1)
        hasher.combine(serial)
        hasher.combine(half)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    private static func write(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let digits: StaticString = "0123456789abcdef"
        for index in 0..<16 {
            let nibble = Int(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
            buffer[start + index] = digits.utf8Start[nibble]
        }
    }
}
