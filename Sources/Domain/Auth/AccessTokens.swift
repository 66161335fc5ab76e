import Foundation

/// The claims of an access token.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    /// Issuer.
    public var iss: String
    /// Audience.
    public var aud: String
    /// The user id.
    public var sub: String
    /// The session id.
    public var sid: String
    /// `user` or `admin`.
    public var role: String
    /// Whether the user was anonymous at issue time.
    public var isAnonymous: Bool
    /// Issued at (seconds since 1970).
    public var iat: Int
    /// Expires at (seconds since 1970).
    public var exp: Int

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, sid, role, iat, exp
        case isAnonymous = "is_anonymous"
    }

    public init(iss: String, aud: String, sub: String, sid: String, role: String, isAnonymous: Bool, iat: Int, exp: Int) {
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.sid = sid
        self.role = role
        self.isAnonymous = isAnonymous
        self.iat = iat
        self.exp = exp
    }
}

/// Why a token was refused.
public enum TokenVerificationError: Error, Sendable, Equatable {
    /// Not three base64url parts of JSON.
    case malformed
    /// `alg` is not HS256 (including `none`).
    case algorithmNotAllowed(String)
    /// `kid` names no configured key.
    case unknownKey
    /// The signature does not match.
    case badSignature
    /// `exp` has passed.
    case expired
    /// `iat` lies in the future beyond the allowed skew.
    case notYetValid
    /// `iss` is not ours.
    case wrongIssuer
    /// `aud` is not ours.
    case wrongAudience
}

/// Signs and checks the server's access tokens (a JWT implementation in the layer below).
/// Checking is two steps so a verified token can be remembered: ``authenticate(_:)``
/// depends only on the token and the keys, ``checkLifetime(_:now:)`` runs on every use.
public protocol AccessTokens: Sendable {
    /// The `iss` this server writes and requires.
    var issuer: String { get }
    /// The `aud` this server writes and requires.
    var audience: String { get }
    /// The token for `claims`.
    func sign(_ claims: AccessTokenClaims) -> String
    /// The claims of `token` if it is ours and intact, whatever the time.
    func authenticate(_ token: String) throws(TokenVerificationError) -> AccessTokenClaims
    /// Throws when `claims` are not current at `now`.
    func checkLifetime(_ claims: AccessTokenClaims, now: Date) throws(TokenVerificationError)
}
