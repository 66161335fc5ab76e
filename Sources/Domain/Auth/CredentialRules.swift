import Foundation

/// Validation of sign-up credentials.
enum CredentialRules {
    /// An email as openapi.yaml's `Email` states it: at most 254 bytes (RFC 5321's limit
    /// on a forward path), printable ASCII without spaces, one `@` between a non-empty
    /// local part and a domain holding a dot that neither begins nor ends it; spaces and
    /// tabs around it are dropped. Lower-cased. Refused before anything is copied, since
    /// emails become limiter keys and queries.
    static func email(_ raw: String) throws -> String {
        guard raw.utf8.count <= 254, raw.wholeMatch(of: emailShape) != nil else {
            throw DomainError.invalid(field: "email", message: "email must be an address like name@example.com, at most 254 bytes")
        }
        return raw.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The contract's pattern, with the spaces and tabs it allows around the address. Made
    /// per use (Regex is not Sendable; checks are per sign-up or sign-in, not per request).
    private static var emailShape: Regex<Substring> { /[ \t]*[!-?A-~]+@[!-\-\/-?A-~][!-?A-~]*\.[!-?A-~]*[!-\-\/-?A-~][ \t]*/ }

    /// Passwords are 8–128 Unicode code points (NIST SP 800-63B minimum; the cap bounds
    /// KDF input), counted as JSON Schema's `minLength` counts.
    static func password(_ password: String) throws {
        guard (8...128).contains(password.unicodeScalars.count) else {
            throw DomainError.invalid(field: "password", message: "password must be 8 to 128 characters")
        }
    }
}

/// Validation of profile fields.
public enum ProfileRules {
    /// A nickname is 1–30 code points holding something other than spaces; kept trimmed.
    public static func nickname(_ raw: String) throws -> String {
        try TextRules.trimmed(raw, field: "nickname", maximum: 30)
    }

    /// An absolute http(s) URL of at most 2,048 characters, in the contract's `HTTPURL`
    /// shape: ASCII, with anything else percent-encoded. The scheme is kept lower-case
    /// (`HTTPS://` is accepted; the tables' checks read `^https?://`).
    public static func url(_ raw: String, field: String) throws -> String {
        guard raw.utf8.count <= 2048, HTTPURLShape.matches(raw), let colon = raw.firstIndex(of: ":") else {
            throw DomainError.invalid(field: field, message: "\(field) must be an http(s) URL")
        }
        return raw[..<colon].lowercased() + raw[colon...]
    }
}

/// The contract's `HTTPURL` pattern, matched byte by byte:
/// `[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?(/(pchar|/)*)?(\?(pchar|/|\?)*)?`
/// where pchar is `[A-Za-z0-9._~!$&()*+,;=:@-]` or `%` and two hex digits.
///
/// It was a `Regex` literal, built per call (Regex is not Sendable): a post row checks three
/// URLs, and parsing the pattern each time cost ~0.6 ms a row, 22 % of an ingest call of
/// 1,000 posts in `perf` (regex parsing alone; 31 % with matching). Tests compare this with
/// the pattern on generated inputs.
public enum HTTPURLShape {
    public static func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    private static func matches(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        func lower(_ c: UInt8) -> UInt8 { c | 0x20 }
        func alnum(_ c: UInt8) -> Bool { (48...57).contains(c) || (65...90).contains(c) || (97...122).contains(c) }
        func hex(_ c: UInt8) -> Bool { (48...57).contains(c) || (65...70).contains(c) || (97...102).contains(c) }
        func pchar(_ c: UInt8) -> Bool {
            switch c {
            case 48...57, 65...90, 97...122: true
            // . _ ~ ! $ & ( ) * + , ; = : @ / -
            case 0x2E, 0x5F, 0x7E, 0x21, 0x24, 0x26, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D, 0x3A, 0x40, 0x2F, 0x2D: true
            default: false
            }
        }
        guard n >= 4, lower(b[0]) == UInt8(ascii: "h"), lower(b[1]) == UInt8(ascii: "t"), lower(b[2]) == UInt8(ascii: "t"),
              lower(b[3]) == UInt8(ascii: "p") else { return false }
        var i = 4
        if i < n, lower(b[i]) == UInt8(ascii: "s") { i += 1 }
        guard i + 3 <= n, b[i] == UInt8(ascii: ":"), b[i + 1] == UInt8(ascii: "/"), b[i + 2] == UInt8(ascii: "/") else { return false }
        i += 3
        guard i < n, alnum(b[i]) else { return false }
        i += 1
        while i < n, alnum(b[i]) || b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "-") { i += 1 }
        if i < n, b[i] == UInt8(ascii: ":") {
            let start = i + 1
            i = start
            while i < n, (48...57).contains(b[i]) { i += 1 }
            guard (1...5).contains(i - start) else { return false }
        }
        // The path, then the query (which may also hold `?`); `%` must start an escape.
        for (opener, question) in [(UInt8(ascii: "/"), false), (UInt8(ascii: "?"), true)] {
            guard i < n, b[i] == opener else { continue }
            i += 1
            while i < n {
                if pchar(b[i]) || (question && b[i] == UInt8(ascii: "?")) {
                    i += 1
                } else if b[i] == UInt8(ascii: "%"), i + 2 < n, hex(b[i + 1]), hex(b[i + 2]) {
                    i += 3
                } else {
                    break
                }
            }
        }
        return i == n
    }
}

/// Text fields as the contract bounds them: JSON Schema counts code points.
public enum TextRules {
    /// `raw` if it has 1 to `maximum` code points, no control characters (a NUL would cut
    /// the text short on its way to PostgreSQL) and not only whitespace; trimmed.
    public static func trimmed(_ raw: String, field: String, maximum: Int) throws -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard (1...maximum).contains(raw.unicodeScalars.count), !trimmed.isEmpty,
              !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DomainError.invalid(field: field, message: "\(field) must be 1 to \(maximum) characters without control characters, not only spaces")
        }
        return trimmed
    }

    /// `raw` if it holds no control character (line breaks and tabs too, unless
    /// `multiline`: then only those three). A NUL cannot reach PostgreSQL at all: one in a
    /// bulk copy failed the whole statement.
    public static func plain(_ raw: String, field: String, multiline: Bool = false) throws -> String {
        let allowed: (Unicode.Scalar) -> Bool = { multiline && ($0 == "\n" || $0 == "\r" || $0 == "\t") }
        guard !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed($0) }) else {
            throw DomainError.invalid(field: field, message: multiline ? "\(field) must not contain control characters other than line breaks and tabs"
                                                                      : "\(field) must not contain control characters")
        }
        return raw
    }
}
