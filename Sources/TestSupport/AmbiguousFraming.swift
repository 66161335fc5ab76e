import Foundation

/// Request heads whose body framing two HTTP parsers could read differently (RFC 9112
/// §6.1, §6.3), each written as a POST whose body, framed by either reading, hides a
/// `GET /hello` behind it: the probes of the engine's tests and of the proxies'.
public enum AmbiguousFraming {
    /// A probe: its name, its framing header lines, and whether libmicrohttpd itself
    /// refuses it before any handler sees the head (a length that is not a number: its own
    /// HTML 400, and it closes).
    public struct Probe: Sendable {
        public let name: String
        public let framing: String
        public let refusedByEngine: Bool

        /// The whole request, with the hidden one behind it.
        public var bytes: Data {
            Data("POST /echo HTTP/1.1\r\nHost: x\r\n\(framing)\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        }
    }

    public static let probes: [Probe] = [
        Probe(name: "Content-Length and Transfer-Encoding", framing: "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", refusedByEngine: false),
        Probe(name: "Transfer-Encoding and Content-Length", framing: "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", refusedByEngine: false),
        Probe(name: "two different Content-Lengths", framing: "Content-Length: 5\r\nContent-Length: 38\r\n", refusedByEngine: false),
        Probe(name: "two equal Content-Lengths", framing: "Content-Length: 5\r\nContent-Length: 5\r\n", refusedByEngine: false),
        Probe(name: "a list-valued Content-Length", framing: "Content-Length: 5, 38\r\n", refusedByEngine: true),
        Probe(name: "a signed Content-Length", framing: "Content-Length: +5\r\n", refusedByEngine: true),
        Probe(name: "a Transfer-Encoding list", framing: "Transfer-Encoding: gzip, chunked\r\n", refusedByEngine: false),
        Probe(name: "chunked twice", framing: "Transfer-Encoding: chunked, chunked\r\n", refusedByEngine: false),
        Probe(name: "two Transfer-Encoding fields", framing: "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", refusedByEngine: false),
        Probe(name: "an unknown Transfer-Encoding", framing: "Transfer-Encoding: xchunked\r\n", refusedByEngine: false),
        Probe(name: "identity", framing: "Transfer-Encoding: identity\r\n", refusedByEngine: false),
        Probe(name: "a folded Transfer-Encoding", framing: "Content-Length: 5\r\nTransfer-Encoding:\r\n chunked\r\n", refusedByEngine: false),
        Probe(name: "a folded other field", framing: "Content-Length: 5\r\nX-Note: one\r\n two\r\n", refusedByEngine: false),
        Probe(name: "a field folded with a tab", framing: "Content-Length: 5\r\nX-Note: one\r\n\ttwo\r\n", refusedByEngine: false),
    ]
}
