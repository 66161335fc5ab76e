import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Workers

extension Application.Dependencies {
    /// Everything backed by one PostgreSQL pool, OpenSSL and the system clock; the
    /// revocation poll reports to `metrics`. With `reads`, the feed, the Top 10, posts,
    /// categories and influencers read from healthy replicas.
    public static func live(pool: PostgresPool, reads: (any ReadPoolSource)? = nil, auth: AuthSettings, media: MediaSettings = .temporary(), logger: Logger,
                            metrics: Metrics? = nil) -> Self {
        let now: @Sendable () -> Date = { Date() }
        // Two threads for upload file work (copying a part, hashing, renaming), at most
        // 64 waiting: more answer 503 busy. Serving reads (a stat each) and the free-space
        // reading have two of their own, so /media never waits behind uploads.
        let fileWorkers = BoundedWorkers(name: "media", threads: 2, queueLimit: 64)
        let mediaReaders = BoundedWorkers(name: "media-read", threads: 2, queueLimit: 256)
        // One repository for posts and likes: one like batcher and one Top 10 cache.
        let posts = PostgresPostRepository(pool: pool, reads: reads)
        var dependencies = Self(
            categories: PostgresCategoryRepository(pool: pool, reads: reads), readiness: pool,
            users: PostgresUserRepository(pool: pool), sessions: PostgresSessionRepository(pool: pool),
            passwords: PBKDF2PasswordHasher(iterations: auth.passwordIterations, workers: auth.passwordWorkers()),
            refreshTokens: HMACRefreshTokenFactory(key: auth.refreshTokenKey),
            idTokens: OIDCIDTokenVerifier(providers: auth.oidcProviders(), now: now),
            accessTokens: AccessTokenCodec(keys: auth.signingKeys, issuer: auth.issuer, audience: auth.audience),
            posts: posts, likes: posts, feed: PostgresFeedRepository(pool: pool, reads: reads),
            influencers: PostgresInfluencerRepository(pool: pool, reads: reads), follows: PostgresFollowRepository(pool: pool, reads: reads),
            influencerRequests: PostgresInfluencerRequestRepository(pool: pool),
            media: FileMediaLibrary(directory: media.directory, pool: pool, workers: fileWorkers, readers: mediaReaders), mediaSettings: media, fileWorkers: fileWorkers,
            idempotency: PostgresIdempotencyStore(pool: pool),
            revocations: SessionRevocations(feed: PostgresRevocationFeed(beside: pool), tokenLifetime: TimeInterval(auth.accessTokenLifetime),
                                            maxAge: auth.revocationMaxAge,
                                            logger: logger, metrics: metrics),
            rateLimitCounters: PostgresRateLimitCounters(pool: pool),
            now: now, newID: { UUID() })
        dependencies.ingest = IngestSettings(keys: PostgresServiceKeyRepository(pool: pool), content: PostgresImporter(pool: pool))
        return dependencies
    }
}
