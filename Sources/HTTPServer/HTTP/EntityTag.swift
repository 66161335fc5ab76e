import Foundation

/// Strong validators for what a GET answers (RFC 9110 §8.8.3, §13.1.2). The tag is a
/// hash of the body this caller gets, so it changes whenever what they see changes (their
/// `is_liked` included) and costs no database work beyond the response itself; a client
/// that sends it back in `If-None-Match` gets `304` without the body: a phone re-reading
/// an unchanged feed page downloads ~100 bytes instead of ~10 KB.
public enum EntityTag {
    /// Adds `ETag` and `Cache-Control` to a successful GET's `response`, or replaces it by
    /// `304 Not Modified` when `request` already holds that tag. `weak` when the body will
    /// be sent gzipped (see ``ContentCoding``): the same content in other bytes.
    public static func apply(_ response: inout HTTPResponse, for request: HTTPRequest, weak: Bool = false) {
        guard request.method == "GET" || request.method == "HEAD", response.status == 200, !response.body.isEmpty,
              // An answer that must not be stored (a console page with its CSRF token) is
              // not revalidated either.
              response.headers["Cache-Control"] != "no-store" else { return }
        let tag = (weak ? "W/\"" : "\"") + hex(hash(response.body)) + "\""
        // Per caller (bodies carry is_liked and the caller's own data): no shared caches,
        // and revalidate on every use.
        let cacheControl = "private, no-cache"
        if matches(request.headers.values(of: "If-None-Match"), tag) {
            // No body (libmicrohttpd 0.9.75 still writes `Content-Length: 0` on it;
            // clients read no content from a 304 whatever its headers say).
            response = HTTPResponse(status: 304)
        }
        response.headers.set("ETag", tag)
        response.headers.set("Cache-Control", cacheControl)
    }

    /// Whether `If-None-Match` (any number of header lines, each a list) names `tag`:
    /// `*`, or the tag by weak comparison (`W/"…"` and `"…"` match each other).
    public static func matches(_ lines: [String], _ tag: String) -> Bool {
        for line in lines {
            for part in line.split(separator: ",") {
                var candidate = part.trimmingCharacters(in: .whitespaces)
                if candidate == "*" { return true }
                if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
                if candidate == tag || "W/" + candidate == tag { return true }
            }
        }
        return false
    }

    /// A 64-bit hash of `bytes`, eight bytes at a step (a multiply-xorshift mix): 4.7 µs for
    /// 10 KB, about a feed page (FNV-1a, a byte at a step over `Data`: 68 µs), against the
    /// ~270 µs of server CPU a feed page costs. Four lanes of 32-byte blocks, so four mixes
    /// run at once instead of each waiting on the last: one lane was 2.5 % of a Top 10
    /// request's server CPU (perf; a 6 KB body).
    public static func hash(_ bytes: Data) -> UInt64 {
        let seed: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (seed, seed &+ 1, seed &+ 2, seed &+ 3)
        var state = seed
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 32 <= raw.count {
                lanes.0 = mix(lanes.0 ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                lanes.1 = mix(lanes.1 ^ raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                lanes.2 = mix(lanes.2 ^ raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                lanes.3 = mix(lanes.3 ^ raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
                offset += 32
            }
            state = mix(mix(mix(mix(state ^ lanes.0) ^ lanes.1) ^ lanes.2) ^ lanes.3)
            while offset + 8 <= raw.count {
                state = mix(state ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift += 8
                offset += 1
            }
            state = mix(state ^ tail)
        }
        return mix(state)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 31
        x = x &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 29)
    }

    public static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
