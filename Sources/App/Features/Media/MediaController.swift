import Domain
import Foundation
import HTTPServer

/// `GET /media/{name}`: stored uploads, public and immutable (a name is its content's
/// hash), with `Range` and `If-None-Match`. Sent from the file, never copied into memory.
/// A deployment can let nginx serve the directory instead (docs/operations.md, Deployment).
struct MediaController: Sendable {
    let uploads: Uploads

    var routes: [Route] {
        [
            Route("GET", "/media/{name}") { request, _ in
                let file = try await uploads.file(named: request.pathParameters["name"] ?? "")
                let name = request.pathParameters["name"] ?? ""
                let tag = "\"" + String(name.prefix(64)) + "\""
                var headers = HTTPHeaders([
                    ("ETag", tag), ("Cache-Control", "public, max-age=31536000, immutable"), ("X-Content-Type-Options", "nosniff"),
                    ("Content-Security-Policy", "default-src 'none'; sandbox"), ("Accept-Ranges", "bytes"),
                ])
                if EntityTag.matches(request.headers.values(of: "If-None-Match"), tag) {
                    return HTTPResponse(status: 304, headers: headers)
                }
                headers.add("Content-Type", file.kind.contentType)
                var response = HTTPResponse(status: 200, headers: headers)
                let range = request.headers["If-Range"].map { $0 == tag } ?? true ? request.headers["Range"] : nil
                switch ByteRange.parse(range, size: file.bytes) {
                case .whole:
                    response.file = ResponseFile(path: file.path, offset: 0, length: file.bytes)
                case .part(let first, let last):
                    response.status = 206
                    response.headers.add("Content-Range", "bytes \(first)-\(last)/\(file.bytes)")
                    response.file = ResponseFile(path: file.path, offset: first, length: last - first + 1)
                case .unsatisfiable:
                    var refused = HTTPResponse.error(status: 416, code: ErrorCodes.rangeNotSatisfiable, message: "The range lies outside the file's \(file.bytes) bytes.")
                    refused.headers.add("Content-Range", "bytes */\(file.bytes)")
                    return refused
                }
                return response
            },
        ]
    }
}

/// A `Range: bytes=…` request (RFC 9110 §14.2) against a file of `size` bytes. One range
/// is served; a list of several is answered whole (allowed, and what a phone's image
/// loader never sends); a header that does not parse is ignored, as the RFC asks.
enum ByteRange: Equatable {
    case whole
    case part(first: Int, last: Int)
    case unsatisfiable

    static func parse(_ header: String?, size: Int) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let start = spec[..<dash], end = spec[spec.index(after: dash)...]
        guard (start + end).allSatisfy({ ("0"..."9").contains($0) }) else { return .whole }
        if start.isEmpty {
            // The last N bytes.
            guard let count = Int(end), count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(first: max(0, size - count), last: size - 1)
        }
        guard let first = Int(start), first >= 0 else { return .whole }
        let last: Int
        if end.isEmpty {
            last = size - 1
        } else {
            guard let value = Int(end), value >= first else { return .whole }
            last = min(value, size - 1)
        }
        return first < size ? .part(first: first, last: last) : .unsatisfiable
    }
}
