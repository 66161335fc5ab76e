import Dispatch
import Domain
import Foundation
import HTTPServer
import Synchronization
import Workers

/// The sessions revoked recently enough that an unexpired access token may still name
/// them. Each instance keeps this set in memory and refreshes it from the database's
/// revocation feed every `pollInterval`, so a logout or account deletion on any instance
/// is refused here within a second, while authenticating a request costs no query.
///
/// The poll runs on a thread of its own over the feed's own connection: as a task whose
/// query queued on the request pool, a saturated instance applied a logout made elsewhere
/// late. And it fails closed: while the last good poll is older than `maxAge`, tokens are
/// refused on writes (``isCurrent``) until it catches up.
public final class SessionRevocations: Sendable {
    private struct State {
        var revoked: [SessionID: Date] = [:]
        /// Each user's latest role change, with when this instance learnt it.
        var roles: [UserID: (role: Role, sequence: Int, seen: Date)] = [:]
        var cursor: String?
        /// When the last poll succeeded.
        var polled: ContinuousClock.Instant?
    }

    private let feed: (any RevocationFeed)?
    private let tokenLifetime: TimeInterval
    private let pollInterval: Duration
    private let maxAge: Duration
    private let state = Mutex(State())
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    private let logger: Logger

    /// Creates the set over `feed` (`nil`: local revocations only, for tests without a
    /// database), polled every `pollInterval`; writes are refused while the last good poll
    /// is older than `maxAge`. The poll's age is on `/metrics`.
    public init(feed: (any RevocationFeed)?, tokenLifetime: TimeInterval, pollInterval: Duration = .milliseconds(250),
                maxAge: Duration = .seconds(3), logger: Logger, metrics: Metrics? = nil) {
        self.feed = feed
        self.tokenLifetime = tokenLifetime
        self.pollInterval = pollInterval
        self.maxAge = maxAge
        self.logger = logger
        metrics?.addCollector { [weak self] text in
            guard let age = self?.pollAge else { return }
            text.gauge("market09_revocation_poll_age_seconds",
                       help: "Seconds since this instance last read the revocation feed: how late a logout elsewhere may be seen here.",
                       Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18)
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

    /// Whether what this instance knows of revocations is recent enough to let a token
    /// write: always without a feed, else the last good poll is at most `maxAge` old.
    public var isCurrent: Bool {
        guard feed != nil else { return true }
        guard let age = pollAge else { return false }
        return age <= maxAge
    }

    /// Time since the last good poll; `nil` before the first.
    var pollAge: Duration? {
        state.withLock { $0.polled }.map { ContinuousClock.now - $0 }
    }

    /// Records a revocation made by this instance, effective at once.
    public func insert(_ sessions: [SessionID]) {
        let now = Date()
        state.withLock { state in for session in sessions { state.revoked[session] = now } }
    }

    /// Loads the current feed (its error stops start-up), then keeps polling on a thread of
    /// its own until ``stop()``.
    public func start() async throws {
        try await poll()
        guard feed != nil, !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.enter()
        let seconds = Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
        let thread = Thread { [self] in
            defer { finished.leave() }
            var failing = false
            while running.load(ordering: .acquiring) {
                do {
                    try pollNow()
                    if failing { logger.info("revocation poll recovered") }
                    failing = false
                } catch {
                    if !failing { logger.warning("revocation poll failed", ["error": .string(String(describing: error))]) }
                    failing = true
                }
                // Woken early by stop().
                if wake.wait(timeout: .now() + seconds) == .success { return }
            }
        }
        thread.name = "market09-revocations"
        thread.start()
    }

    /// Stops polling, waits for a poll in progress, and closes the feed's connection.
    public func stop() async {
        if running.exchange(false, ordering: .acquiringAndReleasing) {
            wake.signal()
            _ = try? await BlockingWork.run(name: "revocations-stop") { [finished] in finished.wait() }
        }
        feed?.close()
    }

    /// One poll, on a thread of its own (tests; the first one at start).
    func poll() async throws {
        try await BlockingWork.run(name: "revocations-poll") { [self] in try pollNow() }
    }

    /// One poll: entries of transactions from the last cursor on (so a revocation that
    /// commits late is read once it commits), and forgetting entries older than any
    /// token they could concern. Blocking.
    private func pollNow() throws {
        guard let feed else { return }
        let horizon = Date().addingTimeInterval(-tokenLifetime - 120)
        let started = ContinuousClock.now
        let changes = try feed.changes(after: state.withLock { $0.cursor }, horizon: horizon)
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
            // As of when the read began: what committed before then is known now.
            state.polled = started
        }
    }
}
