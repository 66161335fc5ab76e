import Domain
import Foundation

/// One OpenID Connect provider this server accepts ID tokens from.
public struct OIDCProvider: Sendable {
    /// Accepted `iss` values.
    public let issuers: [String]
    /// Accepted `aud` values: the app's client ids.
    public let clientIDs: [String]
    /// The provider's signing keys.
    public let keys: JWKSKeyStore

    public init(issuers: [String], clientIDs: [String], keys: JWKSKeyStore) {
        self.issuers = issuers
        self.clientIDs = clientIDs
        self.keys = keys
    }

    /// Google's issuers and JWKS location.
    public static let googleIssuers = ["https://accounts.google.com", "accounts.google.com"]
    /// Google's default key set.
    public static let googleJWKS = "https://www.googleapis.com/oauth2/v3/certs"
    /// Apple's issuer.
    public static let appleIssuers = ["https://appleid.apple.com"]
    /// Apple's default key set.
    public static let appleJWKS = "https://appleid.apple.com/auth/keys"
}

/// Verifies RS256 ID tokens from Google and Apple: signature against the provider's JWKS,
/// `iss`, `aud` (one of the configured client ids), `exp` and `iat` with a small skew,
/// and the nonce (the token carries the SHA-256 hex of the raw nonce the app sent).
public struct OIDCIDTokenVerifier: IDTokenVerifier {
    private let providers: [IdentityProvider: OIDCProvider]
    private let now: @Sendable () -> Date
    private let skewSeconds: Double = 60

    /// Creates a verifier for the configured providers; others answer `providerDisabled`.
    public init(providers: [IdentityProvider: OIDCProvider], now: @escaping @Sendable () -> Date) {
        self.providers = providers
        self.now = now
    }

    public func verify(provider: IdentityProvider, idToken: String, nonce: String?) async throws -> VerifiedIdentity {
        guard let configuration = providers[provider], !configuration.clientIDs.isEmpty else {
            throw AuthError.providerDisabled(provider)
        }
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { throw AuthError.invalidToken("id_token is not a JWT") }
        guard header.alg == "RS256" else { throw AuthError.invalidToken("id_token must be signed with RS256") }
        guard let kid = header.kid, let key = try await configuration.keys.key(id: kid) else {
            throw AuthError.invalidToken("id_token is signed with an unknown key")
        }
        guard key.verifySHA256(signature: Array(signature), message: Array((parts[0] + "." + parts[1]).utf8)) else {
            throw AuthError.invalidToken("id_token signature is invalid")
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: payload) else {
            throw AuthError.invalidToken("id_token claims are malformed")
        }
        let seconds = now().timeIntervalSince1970
        guard configuration.issuers.contains(claims.iss) else { throw AuthError.invalidToken("id_token issuer is not accepted") }
        guard !Set(claims.aud.values).isDisjoint(with: configuration.clientIDs) else { throw AuthError.invalidToken("id_token audience is not this app") }
        // With several audiences, the token was issued to the authorized party (OIDC Core
        // 3.1.3.7): it must be this app, or a token minted for another app would pass.
        if claims.aud.values.count > 1 {
            guard let azp = claims.azp, configuration.clientIDs.contains(azp) else {
                throw AuthError.invalidToken("id_token has several audiences and is not authorized for this app")
            }
        }
        guard Double(claims.exp) + skewSeconds > seconds else { throw AuthError.invalidToken("id_token has expired") }
        guard Double(claims.iat ?? 0) <= seconds + skewSeconds else { throw AuthError.invalidToken("id_token is issued in the future") }
        guard !claims.sub.isEmpty else { throw AuthError.invalidToken("id_token has no subject") }
        switch (nonce, claims.nonce) {
        case (nil, nil): break
        case (let raw?, let hashed?) where SHA256.hex(Data(raw.utf8)) == hashed: break
        default: throw AuthError.invalidToken("id_token nonce does not match")
        }
        return VerifiedIdentity(provider: provider, subject: claims.sub, email: claims.email?.lowercased(),
                                profile: IdentityProfile(name: claims.name, picture: claims.picture))
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String?
    }

    private struct Claims: Decodable {
        let iss: String
        let aud: Audience
        let azp: String?
        let sub: String
        let exp: Int
        let iat: Int?
        let nonce: String?
        let email: String?
        /// Google's display name and picture (GoTrue copies them into user_metadata).
        let name: String?
        let picture: String?
    }

    /// `aud` is a string or an array of strings.
    private struct Audience: Decodable {
        let values: [String]
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let single = try? container.decode(String.self) { values = [single] } else { values = try container.decode([String].self) }
        }
    }
}
