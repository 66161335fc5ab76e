import Foundation

/// `multipart/form-data` (RFC 7578 over RFC 2046's multipart syntax), read from a spooled
/// body in 64 KB pieces: one part is copied to a file as it is found, the others are
/// skipped, so memory stays at the buffer whatever the body's size. Any boundary the RFC
/// allows, quoted or not; a preamble and an epilogue; transport padding after a
/// delimiter; parts in any order. Blocking file I/O: call it off the cooperative pool.
public enum Multipart {
    /// Why a body is not what was expected.
    public enum Failure: Error, Equatable, Sendable {
        /// The content type is not `multipart/form-data`.
        case notMultipart
        /// No usable `boundary` parameter.
        case noBoundary
        /// The body breaks the syntax (truncated, no closing delimiter, a part without
        /// `Content-Disposition`, headers over 16 KB); the text says where.
        case malformed(String)
        /// No part has the name looked for.
        case missingPart
        /// The part holds more than the limit.
        case partTooLarge
    }

    /// What was copied.
    public struct Part: Equatable, Sendable {
        /// The part's bytes.
        public let bytes: Int
        /// `filename` of its `Content-Disposition`, when given.
        public let filename: String?
        /// Its declared `Content-Type`, when given (informative only).
        public let contentType: String?
    }

    /// The boundary of a `multipart/form-data` content type (RFC 2046 §5.1.1: 1–70
    /// characters, quoted or a token).
    public static func boundary(contentType: String?) throws -> [UInt8] {
        guard let contentType else { throw Failure.notMultipart }
        let pieces = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard pieces[0].trimmingCharacters(in: .whitespaces).lowercased() == "multipart/form-data" else { throw Failure.notMultipart }
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            guard piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), !value.hasSuffix(" ") else {
                throw Failure.noBoundary
            }
            return Array(value.utf8)
        }
        throw Failure.noBoundary
    }

    /// Copies the first part named `name` from the file `source` to the descriptor
    /// `destination`, at most `limit` bytes of it.
    public static func copyPart(named name: String, boundary: [UInt8], from source: String, to destination: Int32, limit: Int) throws -> Part {
        let descriptor = open(source, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure.malformed("the body could not be read") }
        defer { close(descriptor) }
        var reader = Reader(descriptor: descriptor)
        let dashBoundary = Array("--".utf8) + boundary
        let delimiter = Array("\r\n".utf8) + dashBoundary
        // The first boundary starts the body, or follows a preamble and a line break.
        if !reader.startsWith(dashBoundary) {
            guard reader.skip(through: delimiter, within: 64 << 10) else { throw Failure.malformed("no boundary delimiter") }
        } else {
            reader.consume(dashBoundary.count)
        }
        var found: Part?
        while true {
            if reader.startsWith(Array("--".utf8)) { break }  // the close delimiter
            try reader.lineEnd()
            let headers = try reader.partHeaders()
            guard let disposition = headers["content-disposition"], let parameters = dispositionParameters(disposition) else {
                throw Failure.malformed("a part without Content-Disposition: form-data")
            }
            let wanted = found == nil && parameters["name"] == name
            let written = try reader.copy(until: delimiter, to: wanted ? destination : nil, limit: limit)
            if wanted { found = Part(bytes: written, filename: parameters["filename"], contentType: headers["content-type"]) }
        }
        guard let found else { throw Failure.missingPart }
        return found
    }

    /// `form-data; name="file"; filename="a.jpg"` as its parameters (names lower-cased);
    /// `nil` unless the type is `form-data`.
    public static func dispositionParameters(_ value: String) -> [String: String]? {
        var scanner = Array(value.utf8)[...]
        func skipSpaces() { while let first = scanner.first, first == 0x20 || first == 0x09 { scanner.removeFirst() } }
        func token() -> String {
            let text = scanner.prefix { $0 != 0x3B && $0 != 0x3D && $0 != 0x20 && $0 != 0x09 }
            scanner.removeFirst(text.count)
            return String(decoding: text, as: UTF8.self)
        }
        skipSpaces()
        guard token().lowercased() == "form-data" else { return nil }
        var parameters: [String: String] = [:]
        while true {
            skipSpaces()
            guard scanner.first == 0x3B else { break }
            scanner.removeFirst()
            skipSpaces()
            let key = token().lowercased()
            skipSpaces()
            guard scanner.first == 0x3D else { return nil }
            scanner.removeFirst()
            skipSpaces()
            var value: [UInt8] = []
            if scanner.first == 0x22 {
                scanner.removeFirst()
                while let byte = scanner.first, byte != 0x22 {
                    scanner.removeFirst()
                    if byte == 0x5C, let escaped = scanner.first { value.append(escaped); scanner.removeFirst() } else { value.append(byte) }
                }
                guard scanner.first == 0x22 else { return nil }
                scanner.removeFirst()
            } else {
                value = Array(token().utf8)
            }
            parameters[key] = String(decoding: value, as: UTF8.self)
        }
        return parameters
    }
}

/// Buffered reading of the body file, 64 KB at a time.
private struct Reader {
    public let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    private var available: Int { buffer.count - start }

    /// Reads more; false at the end of the file.
    private mutating func fill() -> Bool {
        guard !ended else { return false }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { ended = true; return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    /// Makes `count` bytes available if the file has them.
    private mutating func ensure(_ count: Int) -> Bool {
        while available < count { if !fill() { return false } }
        return true
    }

    public mutating func startsWith(_ bytes: [UInt8]) -> Bool {
        ensure(bytes.count) && buffer[start..<start + bytes.count].elementsEqual(bytes)
    }

    public mutating func consume(_ count: Int) { start += count }

    /// Where `needle` starts in the available bytes: `memchr` to each candidate first
    /// byte, `memcmp` for the rest (glibc's `memmem` is not visible to Swift).
    private func find(_ needle: [UInt8]) -> Int? {
        guard available >= needle.count else { return nil }
        return buffer.withUnsafeBytes { raw in
            needle.withUnsafeBytes { pattern in
                let base = raw.baseAddress! + start
                var at = 0
                while available - at >= needle.count {
                    guard let hit = memchr(base + at, Int32(needle[0]), available - at - needle.count + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, pattern.baseAddress!, needle.count) == 0 { return index }
                    at = index + 1
                }
                return nil
            }
        }
    }

    /// Skips past `needle`, found within `bound` bytes; false otherwise.
    public mutating func skip(through needle: [UInt8], within bound: Int) -> Bool {
        while true {
            if let at = find(needle) {
                consume(at + needle.count)
                return true
            }
            if available > bound || !fill() { return false }
        }
    }

    /// After a delimiter: optional transport padding (spaces, tabs), then CRLF.
    public mutating func lineEnd() throws {
        while ensure(1), buffer[start] == 0x20 || buffer[start] == 0x09 { consume(1) }
        guard startsWith([0x0D, 0x0A]) else { throw Multipart.Failure.malformed("the body ends without a close delimiter") }
        consume(2)
    }

    /// A part's header fields up to the empty line (at most 16 KB), names lower-cased.
    public mutating func partHeaders() throws -> [String: String] {
        var headers: [String: String] = [:]
        if startsWith([0x0D, 0x0A]) {
            consume(2)
            return headers
        }
        let end: Int
        while true {
            if let at = find([0x0D, 0x0A, 0x0D, 0x0A]) { end = at; break }
            guard available <= 16 << 10 else { throw Multipart.Failure.malformed("part headers over 16 KB") }
            guard fill() else { throw Multipart.Failure.malformed("the body ends inside part headers") }
        }
        let text = String(decoding: buffer[start..<start + end], as: UTF8.self)
        consume(end + 4)
        for line in text.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw Multipart.Failure.malformed("a part header line without a colon") }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// Copies bytes up to `delimiter` to `destination` (or drops them), consuming the
    /// delimiter; the count copied. More than `limit` to a destination throws.
    public mutating func copy(until delimiter: [UInt8], to destination: Int32?, limit: Int) throws -> Int {
        var copied = 0
        func emit(_ count: Int) throws {
            guard let destination, count > 0 else { return }
            copied += count
            guard copied <= limit else { throw Multipart.Failure.partTooLarge }
            try buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset < count {
                    let written = write(destination, raw.baseAddress! + start + offset, count - offset)
                    guard written > 0 else { throw Multipart.Failure.malformed("the part could not be stored") }
                    offset += written
                }
            }
        }
        while true {
            if let at = find(delimiter) {
                try emit(at)
                consume(at + delimiter.count)
                return copied
            }
            // Everything but a possible start of the delimiter is part content.
            let safe = max(0, available - (delimiter.count - 1))
            try emit(safe)
            consume(safe)
            guard fill() else { throw Multipart.Failure.malformed("the body ends inside a part") }
        }
    }
}
