import Domain
import Foundation
import Synchronization

/// Keeps the feed's per-day order ready: today's and tomorrow's (so the order is there
/// before the day starts) every minute, and drops days before yesterday.
public final class FeedMaintenance: Sendable {
    private let feed: any FeedRepository
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Creates the job.
    public init(feed: any FeedRepository, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.feed = feed
        self.now = now
        self.logger = logger
    }

    /// Prepares today and tomorrow, then repeats every `interval` until ``stop()``.
    public func start(interval: Duration = .seconds(60)) async throws {
        try await runOnce()
        let loop = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                do { try await self.runOnce() } catch { self.logger.warning("feed maintenance failed", ["error": .string(String(describing: error))]) }
            }
        }
        task.withLock { $0 = loop }
    }

    /// Stops the loop and waits for a pass in progress, so the pool can close after this.
    public func stop() async {
        let loop = task.withLock { task in defer { task = nil }; return task }
        loop?.cancel()
        await loop?.value
    }

    /// One pass.
    public func runOnce() async throws {
        let today = KoreaDay(containing: now())
        try await feed.prepare(day: today)
        try await feed.prepare(day: today.next)
        try await feed.discardDays(before: today.previous)
    }
}
