import Cryptography
import Domain
import Foundation
import HTTPServer

/// The console's door: its cookie, its CSRF check and the headers every page carries.
///
/// - The session cookie is `HttpOnly`, `SameSite=Strict`, `Path=/admin`, and `Secure`
///   unless the console is reached on loopback (a developer's `http://127.0.0.1`).
/// - Every POST carries the session's CSRF token in a hidden field, compared in constant
///   time; a browser also names the page's origin, which must be this host's.
/// - Pages forbid framing and inline script and style (`Content-Security-Policy`), load
///   nothing from another origin, and are never cached.
struct ConsoleSecurity: Sendable {
    static let sessionCookie = "market09_console"
    static let signInCookie = "market09_console_signin"

    /// Seconds a session lives unused.
    let idleTimeout: TimeInterval

    static let headers: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Content-Security-Policy",
         "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]

    /// Whether the request reached us on loopback from loopback: the one case a cookie may
    /// travel over plain HTTP.
    static func isLoopback(_ request: HTTPRequest, client: String?) -> Bool {
        let host = (request.headers["Host"] ?? "").lowercased()
        let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }) + "]" : String(host.prefix { $0 != ":" })
        let loopbackNames = ["localhost", "127.0.0.1", "[::1]"]
        let peer = client ?? ""
        return loopbackNames.contains(name) && (peer.hasPrefix("127.") || peer == "::1")
    }

    /// `Set-Cookie` for `value` (`nil` clears it).
    func cookie(_ name: String, _ value: String?, secure: Bool) -> String {
        var parts = ["\(name)=\(value ?? "")", "Path=/admin", "HttpOnly", "SameSite=Strict"]
        parts.append(value == nil ? "Max-Age=0" : "Max-Age=\(Int(idleTimeout))")
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    /// Whether a form came from one of our pages: its token matches, and the browser's
    /// `Origin` (when sent) is this host.
    static func formIsOurs(_ form: ConsoleForm, expected token: String, request: HTTPRequest) -> Bool {
        if let origin = request.headers["Origin"], let host = request.headers["Host"] {
            guard origin == "http://" + host || origin == "https://" + host else { return false }
        }
        guard let sent = form["csrf"] else { return false }
        return CryptoPrimitives.constantTimeEquals(Array(sent.utf8), Array(token.utf8))
    }
}
