import CMicroHTTPD
import Foundation

/// One pass over a request's header fields, on the engine thread, before any handler: how
/// many bytes they take, and whether the body's framing is ambiguous.
///
/// Ambiguous framing is what two HTTP parsers could read differently (RFC 9112 §6.1,
/// §6.3): both `Content-Length` and `Transfer-Encoding`, more than one of either, a length
/// that is not one decimal number, a transfer coding other than `chunked`, and header
/// lines folded onto the next (obs-fold). libmicrohttpd framed such a body by the first
/// `Content-Length` and read the rest as a new request on the same connection: a front
/// end that framed by the other header would pass a hidden request through (request
/// smuggling). The refusal closes the connection, so nothing after the head is read.
struct RequestHead {
    /// Names and values of every field, with 4 bytes each for `: ` and CRLF.
    private(set) var fieldBytes = 0
    private var lengths: [Substring] = []
    private var codings: [Substring] = []
    private var folded = false

    /// Reads the fields of `connection`'s head.
    init(_ connection: OpaquePointer) {
        withUnsafeMutablePointer(to: &self) { head in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, Self.visit, head)
        }
    }

    /// The 400 for an ambiguous framing, or `nil`.
    var framingRefusal: HTTPResponse? {
        let problem: String
        if folded {
            problem = "a header line is folded onto the next (obsolete line folding)"
        } else if !lengths.isEmpty && !codings.isEmpty {
            problem = "it has both Content-Length and Transfer-Encoding"
        } else if lengths.count > 1 || codings.count > 1 {
            problem = "it repeats Content-Length or Transfer-Encoding"
        } else if let length = lengths.first, length.isEmpty || !length.utf8.allSatisfy({ (48...57).contains($0) }) {
            problem = "its Content-Length is not one decimal number"
        } else if let coding = codings.first, coding.lowercased() != "chunked" {
            problem = "its Transfer-Encoding is not exactly chunked"
        } else {
            return nil
        }
        var response = HTTPResponse.error(status: 400, code: TransportErrorCodes.ambiguousFraming,
                                          message: "The request's body framing is ambiguous: \(problem). Send one Content-Length or Transfer-Encoding: chunked.")
        response.headers.set("Connection", "close")
        return response
    }

    /// libmicrohttpd 0.9.75 (Debian 12) parses the head in place: a field's name ends at
    /// its colon (overwritten with NUL) and its value follows after optional spaces. A line
    /// folded onto the next is appended to a copy of the *name* made elsewhere, while the
    /// value still points into the head: a folded `Transfer-Encoding:` + ` chunked` arrives
    /// as the field `Transfer-Encodingchunked` with an empty value. That layout is the only
    /// trace a fold leaves, so a field whose value does not follow its name that way counts
    /// as folded (RequestFramingTests fails if a later library changes it).
    private static let visit: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let head = cls.assumingMemoryBound(to: RequestHead.self)
        let nameLength = strlen(key)
        let valueLength = value.map { strlen($0) } ?? 0
        head.pointee.fieldBytes += nameLength + valueLength + 4
        guard let value else { return .YES }
        var cursor = UnsafeRawPointer(key) + nameLength + 1
        let start = UnsafeRawPointer(value)
        if cursor <= start && start - cursor < 4096 {
            while cursor < start, cursor.load(as: UInt8.self) == 0x20 || cursor.load(as: UInt8.self) == 0x09 { cursor += 1 }
        }
        if cursor != start { head.pointee.folded = true }
        if strcasecmp(key, "Content-Length") == 0 {
            head.pointee.lengths.append(String(cString: value).trimmingSpaces)
        } else if strcasecmp(key, "Transfer-Encoding") == 0 {
            head.pointee.codings.append(String(cString: value).trimmingSpaces)
        }
        return .YES
    }
}

private extension String {
    /// Without the spaces and tabs around it (a field value's optional whitespace).
    var trimmingSpaces: Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
