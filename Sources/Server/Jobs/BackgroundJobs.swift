import App
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver

/// The server's background jobs, each a ``RepeatingJob``: a first pass at start on every
/// instance, then repeats on the one instance holding the job lease (``JobLeadership``).
/// Each pass is safe twice; the ones that must not overlap take an advisory lock.
enum BackgroundJobs {
    /// Every minute: today's and tomorrow's feed order (so the order is there before the
    /// day starts), days before yesterday dropped, and the window bounds narrowed when a
    /// post at a bound was edited or deleted.
    static func feedMaintenance(feed: any FeedRepository, now: @escaping @Sendable () -> Date, logger: Logger, metrics: Metrics?,
                                leadership: JobLeadership?, interval: Duration = .seconds(60)) -> RepeatingJob {
        RepeatingJob(name: "feed maintenance", interval: interval, logger: logger, metrics: metrics, leadership: leadership) {
            try await prepareFeed(feed, now: now())
        }
    }

    /// One pass of ``feedMaintenance(feed:now:logger:metrics:leadership:interval:)``.
    static func prepareFeed(_ feed: any FeedRepository, now: Date) async throws {
        let today = KoreaDay(containing: now)
        try await feed.prepare(day: today)
        try await feed.prepare(day: today.next)
        try await feed.discardDays(before: today.previous)
        _ = try await feed.tightenWindowBounds()
    }

    /// Every minute: revocation and role-change rows older than a token lifetime (plus 2
    /// minutes for clock skew), refresh tokens of sessions revoked that long ago, refresh
    /// tokens spent over 30 days ago, idempotency keys past 24 hours and rate-limit windows
    /// that have ended (DELETEs by age, harmless twice; the pass takes its advisory lock,
    /// should a paused ex-leader wake up).
    static func authHousekeeping(pool: PostgresPool, tokenLifetime: TimeInterval, logger: Logger, metrics: Metrics?,
                                 leadership: JobLeadership) -> RepeatingJob {
        let housekeeping = PostgresSessionHousekeeping(pool: pool)
        let idempotency = PostgresIdempotencyStore(pool: pool)
        let rateLimits = PostgresRateLimitCounters(pool: pool)
        return RepeatingJob(name: "auth housekeeping", interval: .seconds(60), logger: logger, metrics: metrics, leadership: leadership) {
            let now = Date()
            let expiredKeys = try await idempotency.prune(now: now)
            if expiredKeys > 0 { logger.info("idempotency keys pruned", ["count": .int(expiredKeys)]) }
            _ = try await rateLimits.prune(now: now)
            guard let report = try await housekeeping.prune(horizon: now.addingTimeInterval(-tokenLifetime - 120), spentTokenRetention: 30 * 86_400, now: now),
                  report != PostgresSessionHousekeeping.Report() else { return }
            logger.info("auth housekeeping", ["revocations": .int(report.revocations), "role_changes": .int(report.roleChanges),
                                              "refresh_tokens": .int(report.refreshTokens)])
        }
    }

    /// Every 5 seconds: like deltas that a crash or a failover left unfolded (a batch of
    /// likes folds its own right after its commit; migration 0034). Folds queue on the post's
    /// row with the live ones and count each delta once.
    static func likeCountSweep(pool: PostgresPool, logger: Logger, metrics: Metrics?, leadership: JobLeadership) -> RepeatingJob {
        RepeatingJob(name: "like count sweep", interval: .seconds(5), logger: logger, metrics: metrics, leadership: leadership) {
            let folded = try await PostgresPostRepository.foldPendingLikes(pool)
            if folded > 0 { logger.info("like counts folded", ["posts": .int(folded)]) }
        }
    }

    /// Every 10 minutes: uploads nothing has referred to for 24 hours are removed (one
    /// pass at a time even so: the library's advisory lock).
    static func mediaPruning(_ uploads: Uploads, logger: Logger, metrics: Metrics?, leadership: JobLeadership) -> RepeatingJob {
        RepeatingJob(name: "media pruning", interval: .seconds(600), logger: logger, metrics: metrics, leadership: leadership) {
            let removed = try await uploads.prune()
            if !removed.isEmpty { logger.info("unreferenced uploads removed", ["count": .int(removed.count)]) }
        }
    }

    /// Every hour: the live posts' gram index rolled forward when its cutoff is two weeks old
    /// (``LiveSearchIndex``). A build reads every post (49 s on 10 M) on a connection of its
    /// own, while writes go on. A server role that does not own posts (docker-compose.yml's)
    /// cannot: there `market09 migrate` rolls it.
    static func liveSearchIndex(_ index: LiveSearchIndex, now: @escaping @Sendable () -> Date, logger: Logger, metrics: Metrics?,
                                leadership: JobLeadership) -> RepeatingJob {
        RepeatingJob(name: "live search index", interval: .seconds(3600), logger: logger, metrics: metrics, leadership: leadership) {
            let started = ContinuousClock.now
            switch try await index.roll(now: now()) {
            case .built(let name, let dropped):
                let seconds = (ContinuousClock.now - started).components.seconds
                logger.info("live search index built", ["index": .string(name), "seconds": .int(Int(seconds)),
                                                        "dropped": .string(dropped.joined(separator: ","))])
            case .current(_, let dropped) where !dropped.isEmpty:
                logger.info("live search indexes dropped", ["dropped": .string(dropped.joined(separator: ","))])
            case .notPermitted:
                logger.info("live search index left to `market09 migrate`: this role does not own posts")
            case .current, .buildingElsewhere:
                break
            }
        }
    }

    /// Every 5 seconds: pending influencer requests checked against the profile lookup.
    static func influencerVerification(_ verification: InfluencerVerification, logger: Logger, metrics: Metrics?,
                                       leadership: JobLeadership) -> RepeatingJob {
        RepeatingJob(name: "influencer verification", interval: .seconds(5), logger: logger, metrics: metrics, leadership: leadership) {
            let decided = try await verification.runOnce()
            if decided > 0 { logger.info("influencer requests decided", ["count": .int(decided)]) }
        }
    }
}
