import Domain
import Foundation
import Synchronization

/// The sessions revoked recently enough that an unexpired access token may still name
/// them. Each instance keeps this set in memory and refreshes it from the database's
/// revocation feed every `pollInterval`, so a logout or account deletion on any instance
/// is refused here within a second, while authenticating a request costs no query.
public final class SessionRevocations: Sendable {
    private struct State {
        var revoked: [SessionID: Date] = [:]
        /// Each user's latest role change, with when this instance learnt it.
        var roles: [UserID: (role: Role, sequence: Int, seen: Date)] = [:]
        var cursor: String?
        /// When the last poll succeeded.
        var polled: Date?
    }

    private let feed: (any RevocationFeed)?
    private let tokenLifetime: TimeInterval
    private let pollInterval: Duration
    private let state = Mutex(State())
    private let poller = Mutex<RepeatingJob?>(nil)
    private let logger: Logger
    private let metrics: Metrics?

    /// Creates the set over `feed` (`nil`: local revocations only, for tests without a
    /// database); polls are counted in `metrics`, with the age of the last good one.
    public init(feed: (any RevocationFeed)?, tokenLifetime: TimeInterval, pollInterval: Duration = .milliseconds(250), logger: Logger,
                metrics: Metrics? = nil) {
        self.feed = feed
        self.tokenLifetime = tokenLifetime
        self.pollInterval = pollInterval
        self.logger = logger
        self.metrics = metrics
        metrics?.addCollector { [weak self] text in
            guard let polled = self?.state.withLock({ $0.polled }) else { return }
            text.gauge("market09_revocation_poll_age_seconds",
                       help: "Seconds since this instance last read the revocation feed: how late a logout elsewhere may be seen here.",
                       Date().timeIntervalSince(polled))
        }
    }

    /// Whether `session` was revoked.
    public func isRevoked(_ session: SessionID) -> Bool {
        state.withLock { $0.revoked[session] != nil }
    }

    /// The role `user` was given after tokens issued up to a token lifetime ago, if any:
    /// it replaces the role inside such a token.
    public func changedRole(of user: UserID) -> Role? {
        state.withLock { $0.roles[user]?.role }
    }

    /// Records a revocation made by this instance, effective at once.
    public func insert(_ sessions: [SessionID]) {
        let now = Date()
        state.withLock { state in for session in sessions { state.revoked[session] = now } }
    }

    /// Loads the current feed, then keeps polling until ``stop()``.
    public func start() async throws {
        let job = RepeatingJob(name: "revocation poll", interval: pollInterval, logger: logger, metrics: metrics) { [weak self] in try await self?.poll() }
        poller.withLock { $0 = job }
        try await job.start()
    }

    /// Stops polling and waits for a poll in progress, so the pool can close after this.
    public func stop() async {
        await poller.withLock { $0 }?.stop()
    }

    /// One poll: entries of transactions from the last cursor on (so a revocation that
    /// commits late is read once it commits), and forgetting entries older than any
    /// token they could concern.
    func poll() async throws {
        guard let feed else { return }
        let horizon = Date().addingTimeInterval(-tokenLifetime - 120)
        let changes = try await feed.changes(after: state.withLock { $0.cursor }, horizon: horizon)
        let now = Date()
        state.withLock { state in
            for session in changes.sessions where state.revoked[session] == nil { state.revoked[session] = now }
            // Rows may be read again, in any order: the change with the larger sequence wins.
            for change in changes.roles where change.sequence > state.roles[change.user]?.sequence ?? 0 {
                state.roles[change.user] = (change.role, change.sequence, now)
            }
            state.revoked = state.revoked.filter { $0.value > horizon }
            state.roles = state.roles.filter { $0.value.seen > horizon }
            state.cursor = changes.cursor
            state.polled = now
        }
    }
}
