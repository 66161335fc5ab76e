import Cryptography
import Domain
import Foundation
import HTTPServer
import Workers

/// Settings of authentication, read from the environment by ``Configuration``.
public struct AuthSettings: Sendable {
    /// Access-token keys: the first signs, all verify.
    public var signingKeys: [SigningKey]
    /// `iss` of access tokens.
    public var issuer = "market09"
    /// `aud` of access tokens.
    public var audience = "market09-app"
    /// Access-token lifetime in seconds.
    public var accessTokenLifetime = 3600
    /// Refresh-token reuse grace window and session limits.
    public var sessions = Authentication.Settings()
    /// PBKDF2 iterations for new password hashes.
    public var passwordIterations = PBKDF2PasswordHasher.recommendedIterations
    /// Threads that run the password KDF at once: half the cores, at least one, so a
    /// storm of sign-ins leaves cores to reads.
    public var passwordHashThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// KDF runs that may wait for a thread; beyond them sign-ins answer 503 `busy`.
    public var passwordHashQueue = 16
    /// Anonymous sign-ups per client address.
    public var anonymousSignUps = RateLimiter.Limit(count: 30, per: 3600)
    /// Calls of the token and sign-up endpoints per client address.
    public var tokenRequests = RateLimiter.Limit(count: 150, per: 300)
    /// Failed password sign-ins per email.
    public var failedPasswordSignIns = RateLimiter.Limit(count: 10, per: 900)
    /// Failed password checks per client address, whatever the email.
    public var failedPasswordsPerAddress = RateLimiter.Limit(count: 50, per: 900)
    /// Proxies whose `X-Forwarded-For` is believed.
    public var trustedProxies: [String] = []
    /// How old the last good revocation poll may be before tokens are refused on writes
    /// (fail closed): the poll runs every 250 ms on a thread and connection of its own.
    public var revocationMaxAge: Duration = .seconds(3)
    /// Google client ids (empty: Google sign-in disabled) and key set.
    public var googleClientIDs: [String] = []
    /// Where Google's keys come from.
    public var googleJWKS = JWKSSource(OIDCProvider.googleJWKS)
    /// Apple client ids (empty: Apple sign-in disabled).
    public var appleClientIDs: [String] = []
    /// Where Apple's keys come from.
    public var appleJWKS = JWKSSource(OIDCProvider.appleJWKS)

    /// Settings with `signingKeys` and defaults for the rest.
    public init(signingKeys: [SigningKey] = []) {
        self.signingKeys = signingKeys
    }

    /// A key whose `kid` is derived from the secret, so operators configure secrets only.
    public static func key(secret: String) -> SigningKey {
        SigningKey(id: String(SHA256.hex(Data(("kid:" + secret).utf8)).prefix(12)), secret: Array(secret.utf8))
    }

    /// The bounded threads the password KDF runs on.
    public func passwordWorkers() -> BoundedWorkers {
        BoundedWorkers(name: "pbkdf2", threads: passwordHashThreads, queueLimit: passwordHashQueue)
    }

    /// The configured ID-token providers.
    public func oidcProviders() -> [IdentityProvider: OIDCProvider] {
        [
            .google: OIDCProvider(issuers: OIDCProvider.googleIssuers, clientIDs: googleClientIDs, keys: JWKSKeyStore(source: googleJWKS)),
            .apple: OIDCProvider(issuers: OIDCProvider.appleIssuers, clientIDs: appleClientIDs, keys: JWKSKeyStore(source: appleJWKS)),
        ]
    }

    /// The key successors of refresh tokens are derived with (from the signing secret).
    public var refreshTokenKey: [UInt8] {
        CryptoPrimitives.hmacSHA256(key: signingKeys[0].secret, message: Data("market09 refresh token successor".utf8))
    }
}
