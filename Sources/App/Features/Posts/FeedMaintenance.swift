import Domain
import Foundation
import HTTPServer
import Synchronization

/// Keeps the feed's per-day order ready: today's and tomorrow's (so the order is there
/// before the day starts) every minute, and drops days before yesterday.
public final class FeedMaintenance: Sendable {
    private let feed: any FeedRepository
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let interval: Duration
    private let metrics: Metrics?
    private let leadership: JobLeadership?
    private let job = Mutex<RepeatingJob?>(nil)

    /// Creates the job, run every `interval` once started (its passes counted in `metrics`).
    public init(feed: any FeedRepository, now: @escaping @Sendable () -> Date, logger: Logger, interval: Duration = .seconds(60),
                metrics: Metrics? = nil, leadership: JobLeadership? = nil) {
        self.feed = feed
        self.now = now
        self.logger = logger
        self.interval = interval
        self.metrics = metrics
        self.leadership = leadership
    }

    /// Prepares today and tomorrow, then repeats every `interval` until ``stop()``.
    public func start() async throws {
        let repeating = RepeatingJob(name: "feed maintenance", interval: interval, logger: logger, metrics: metrics,
                                     leadership: leadership) { [weak self] in try await self?.runOnce() }
        job.withLock { $0 = repeating }
        try await repeating.start()
    }

    /// Stops the loop and waits for a pass in progress, so the pool can close after this.
    public func stop() async {
        await job.withLock { $0 }?.stop()
    }

    /// One pass.
    public func runOnce() async throws {
        let today = KoreaDay(containing: now())
        try await feed.prepare(day: today)
        try await feed.prepare(day: today.next)
        try await feed.discardDays(before: today.previous)
    }
}
