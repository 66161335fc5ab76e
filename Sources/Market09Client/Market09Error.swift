import Foundation

/// Errors of the API client.
public enum Market09Error: Error, Sendable, Equatable {
    /// The server refused the credentials even after one refresh (`code` is the server's,
    /// e.g. `session_revoked`).
    case unauthorized(code: String)
    /// The server answered with an error status.
    case server(status: Int, code: String, message: String)
    /// The server could not be reached or the connection failed; retrying may work.
    case network(String)
    /// The server's answer was not what the client expected.
    case unexpectedResponse(String)

    /// Whether the app should offer "retry".
    public var isRetryable: Bool {
        switch self {
        case .network: true
        case .server(let status, _, _): status >= 500 || status == 429
        case .unauthorized, .unexpectedResponse: false
        }
    }
}
