import Foundation

/// `Accept-Encoding: gzip` for JSON bodies of at least ``minimumSize`` bytes (RFC 9110
/// §8.4, §12.5.3). A feed page of 20 posts is ~10 KB of JSON and ~2 KB gzipped: on a
/// phone's metered connection that is the difference that counts, and it costs ~60–75 µs
/// of server CPU at level 1 (docs/performance.md, compression). Off with `GZIP_LEVEL=0`,
/// for a proxy in front that compresses on cores of its own.
///
/// A compressed response keeps its entity tag's value but marks it weak (`W/"…"`), as
/// nginx does: the bytes differ from the identity response's, the content does not, and
/// `If-None-Match` compares weakly, so either form revalidates (RFC 9110 §8.8.3.2).
public enum ContentCoding {
    /// Bodies below this are sent as they are: under one packet, gzip saves no round trip
    /// and its 18-byte frame can make them larger.
    public static let minimumSize = 1024

    /// What to do with one response's body, decided before its entity tag (which depends
    /// on it) can turn it into a 304.
    public struct Decision: Sendable {
        /// A JSON 200 large enough to be worth compressing: its encoding depends on
        /// `Accept-Encoding`, whether or not this client accepts gzip.
        public let compressible: Bool
        /// Compressible, and this client accepts gzip.
        public let gzip: Bool
    }

    /// The decision for `response` to `request`.
    public static func decide(_ request: HTTPRequest, _ response: HTTPResponse) -> Decision {
        let compressible = isCompressible(response)
        return Decision(compressible: compressible, gzip: compressible && acceptsGzip(request.headers.values(of: "Accept-Encoding")))
    }

    /// Gzips `response`'s body when so decided and it is still a 200 (not a 304), and
    /// says in `Vary` that the encoding depends on `Accept-Encoding`.
    public static func apply(_ decision: Decision, to response: inout HTTPResponse, encoders: GzipEncoders) {
        guard decision.compressible else { return }
        response.headers.add("Vary", "Accept-Encoding")
        guard decision.gzip, response.status == 200, let gzipped = encoders.compress(response.body) else { return }
        response.body = gzipped
        response.headers.set("Content-Encoding", "gzip")
    }

    /// A JSON 200 large enough to be worth compressing.
    public static func isCompressible(_ response: HTTPResponse) -> Bool {
        response.status == 200 && response.body.count >= minimumSize && !response.headers.contains("Content-Encoding")
            && (response.headers["Content-Type"]?.hasPrefix("application/json") ?? false)
    }

    /// Whether an `Accept-Encoding` field (any number of lines, each a list of codings
    /// with optional `;q=` weights) accepts gzip: `gzip`, `x-gzip` or `*` with a weight
    /// above zero, unless gzip itself is listed with `q=0`.
    public static func acceptsGzip(_ lines: [String]) -> Bool {
        var gzip: Bool?
        var any: Bool?
        for line in lines {
            for item in line.split(separator: ",") {
                let parts = item.split(separator: ";")
                guard let name = parts.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
                let accepted = parts.dropFirst().allSatisfy { parameter in
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard pair.count == 2, pair[0].lowercased() == "q" else { return true }
                    return (Double(pair[1]) ?? 0) > 0
                }
                switch name {
                case "gzip", "x-gzip": gzip = accepted
                case "*": any = accepted
                default: break
                }
            }
        }
        return gzip ?? any ?? false
    }
}
