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
        guard raw.utf8.count <= 2048, raw.wholeMatch(of: urlShape) != nil, let colon = raw.firstIndex(of: ":") else {
            throw DomainError.invalid(field: field, message: "\(field) must be an http(s) URL")
        }
        return raw[..<colon].lowercased() + raw[colon...]
    }

    /// Made per use, as `emailShape` (Regex is not Sendable).
    private static var urlShape: Regex<(Substring, Substring?, Substring?, Substring?, Substring?, Substring?)> {
        /[Hh][Tt][Tt][Pp][Ss]?:\/\/[A-Za-z0-9][A-Za-z0-9.\-]*(:[0-9]{1,5})?(\/([A-Za-z0-9._~!$&()*+,;=:@\/\-]|%[0-9A-Fa-f]{2})*)?(\?([A-Za-z0-9._~!$&()*+,;=:@\/?\-]|%[0-9A-Fa-f]{2})*)?/
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
}
