import Foundation

/// Validation of sign-up credentials.
enum CredentialRules {
    /// Trims and lower-cases an email and checks its shape (one `@`, a dotted domain, no
    /// spaces, at most 254 bytes: RFC 5321's limit on a forward path). Input far beyond
    /// that is refused before it is copied, since emails become limiter keys and queries.
    static func email(_ raw: String) throws -> String {
        let invalid = DomainError.invalid(field: "email", message: "email must be an address like name@example.com, at most 254 bytes")
        guard raw.utf8.count <= 254 + 64 else { throw invalid }
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw invalid }
        return email
    }

    /// Passwords are 8–128 characters (NIST SP 800-63B minimum; the cap bounds KDF input).
    static func password(_ password: String) throws {
        guard (8...128).contains(password.count) else {
            throw DomainError.invalid(field: "password", message: "password must be 8 to 128 characters")
        }
    }
}

/// Validation of profile fields.
public enum ProfileRules {
    /// A nickname is 1–30 characters after trimming.
    public static func nickname(_ raw: String) throws -> String {
        let nickname = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...30).contains(nickname.count) else {
            throw DomainError.invalid(field: "nickname", message: "nickname must be 1 to 30 characters")
        }
        return nickname
    }

    /// An absolute http(s) URL of at most 2,048 characters.
    public static func url(_ raw: String, field: String) throws -> String {
        guard raw.count <= 2048, let url = URL(string: raw), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { throw DomainError.invalid(field: field, message: "\(field) must be an http(s) URL") }
        return raw
    }
}
