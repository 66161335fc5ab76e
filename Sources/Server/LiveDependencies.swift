import App
import Data
import Domain
import Foundation

extension Application.Dependencies {
    /// Everything backed by one PostgreSQL pool, OpenSSL and the system clock; the
    /// revocation poll reports to `metrics`.
    public static func live(pool: PostgresPool, auth: AuthSettings, logger: Logger, metrics: Metrics? = nil) -> Self {
        let now: @Sendable () -> Date = { Date() }
        return Self(
            categories: PostgresCategoryRepository(pool: pool), readiness: pool,
            users: PostgresUserRepository(pool: pool), sessions: PostgresSessionRepository(pool: pool),
            passwords: PBKDF2PasswordHasher(iterations: auth.passwordIterations, workers: auth.passwordWorkers()),
            refreshTokens: HMACRefreshTokenFactory(key: auth.refreshTokenKey),
            idTokens: OIDCIDTokenVerifier(providers: auth.oidcProviders(), now: now),
            accessTokens: AccessTokenCodec(keys: auth.signingKeys, issuer: auth.issuer, audience: auth.audience),
            posts: PostgresPostRepository(pool: pool), likes: PostgresPostRepository(pool: pool), feed: PostgresFeedRepository(pool: pool),
            influencers: PostgresInfluencerRepository(pool: pool), follows: PostgresFollowRepository(pool: pool), idempotency: PostgresIdempotencyStore(pool: pool),
            revocations: SessionRevocations(feed: PostgresRevocationFeed(pool: pool), tokenLifetime: TimeInterval(auth.accessTokenLifetime),
                                            logger: logger, metrics: metrics),
            now: now, newID: { UUID() })
    }
}
