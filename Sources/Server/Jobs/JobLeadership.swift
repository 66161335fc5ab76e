import Domain
import Foundation
import HTTPServer
import Synchronization

/// Whether this instance is the one that runs the background jobs. It holds a
/// ``LeaderLease`` of `duration` seconds and renews it every third of that; repeating
/// jobs run their passes only while ``isLeader``. An instance killed with `kill -9` stops
/// renewing, and another takes over within `duration` plus a third of it; one stopped
/// gracefully gives the lease up, and another takes over within a third.
///
/// The lease alone cannot rule out two passes at once (a leader paused longer than its
/// lease wakes up mid-pass), so each job still takes its own advisory lock or
/// `SKIP LOCKED` rows: the lease makes one instance do the work, the locks make a second
/// one harmless.
public final class JobLeadership: Sendable {
    /// This instance's name in the lease (logged when it takes or loses it).
    public let holder = UUID()
    private let lease: any LeaderLease
    private let duration: TimeInterval
    private let logger: Logger
    /// Held until this instant by the local monotonic clock: read before the renewal was
    /// sent, so it ends no later than the lease by the database's clock.
    private let heldUntil = Mutex<ContinuousClock.Instant?>(nil)
    private let loop = Mutex<RepeatingJob?>(nil)

    public init(lease: any LeaderLease, duration: TimeInterval, logger: Logger) {
        self.lease = lease
        self.duration = duration
        self.logger = logger
    }

    /// Whether this instance holds the lease now.
    public var isLeader: Bool {
        heldUntil.withLock { $0.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Tries the lease once (so the first instance up leads at once), then keeps trying
    /// every third of its duration.
    public func start() async throws {
        let renewal = RepeatingJob(name: "job leadership", interval: .seconds(duration / 3), logger: logger) { [weak self] in
            await self?.attempt()
        }
        loop.withLock { $0 = renewal }
        try await renewal.start()
    }

    /// Stops renewing and gives the lease up if held.
    public func stop() async {
        await loop.withLock { renewal in defer { renewal = nil }; return renewal }?.stop()
        guard heldUntil.withLock({ state in defer { state = nil }; return state != nil }) else { return }
        do { try await lease.release(holder: holder) } catch {
            logger.warning("job leadership not released (another instance takes over when it expires)", ["error": .string(String(describing: error))])
        }
        logger.info("job leadership released", ["holder": .string(holder.uuidString)])
    }

    private func attempt() async {
        let sent = ContinuousClock.now
        let held: Bool
        do {
            held = try await lease.acquire(holder: holder, duration: duration)
        } catch {
            // Unknown: the lease is trusted until its local end, then this instance stops.
            logger.warning("job leadership not renewed", ["error": .string(String(describing: error))])
            return
        }
        let was = heldUntil.withLock { state in
            defer { state = held ? sent.advanced(by: .seconds(duration)) : nil }
            return state.map { ContinuousClock.now < $0 } ?? false
        }
        if held && !was { logger.info("job leadership acquired", ["holder": .string(holder.uuidString)]) }
        if !held && was { logger.warning("job leadership lost", ["holder": .string(holder.uuidString)]) }
    }
}
