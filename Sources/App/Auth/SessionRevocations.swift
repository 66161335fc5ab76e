import Data
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
        var cursor: Date?
    }

    private let feed: PostgresRevocationFeed?
    private let tokenLifetime: TimeInterval
    private let pollInterval: Duration
    private let state = Mutex(State())
    private let poller = Mutex<Task<Void, Never>?>(nil)
    private let logger: Logger

    /// Creates the set over `feed` (`nil`: local revocations only, for tests without a database).
    public init(feed: PostgresRevocationFeed?, tokenLifetime: TimeInterval, pollInterval: Duration = .milliseconds(250), logger: Logger) {
        self.feed = feed
        self.tokenLifetime = tokenLifetime
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Whether `session` was revoked.
    public func isRevoked(_ session: SessionID) -> Bool {
        state.withLock { $0.revoked[session] != nil }
    }

    /// Records a revocation made by this instance, effective at once.
    public func insert(_ sessions: [SessionID]) {
        let now = Date()
        state.withLock { state in for session in sessions { state.revoked[session] = now } }
    }

    /// Loads the current feed, then keeps polling until ``stop()``.
    public func start() async throws {
        try await poll()
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                try? await Task.sleep(for: self.pollInterval)
                // A cancelled sleep returns at once: polling then would meet a closing pool.
                guard !Task.isCancelled else { return }
                do {
                    try await self.poll()
                } catch {
                    self.logger.warning("revocation poll failed", ["error": .string(String(describing: error))])
                }
            }
        }
        poller.withLock { $0 = task }
    }

    /// Stops polling and waits for a poll in progress, so the pool can close after this.
    public func stop() async {
        let task = poller.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
    }

    /// One poll: entries since the last poll (with an overlap for transactions that
    /// committed late), and forgetting entries older than any token they could match.
    func poll() async throws {
        guard let feed else { return }
        let since = state.withLock { $0.cursor } ?? Date().addingTimeInterval(-tokenLifetime - 120)
        let (sessions, databaseNow) = try await feed.revoked(since: since)
        let horizon = Date().addingTimeInterval(-tokenLifetime - 120)
        state.withLock { state in
            for session in sessions where state.revoked[session] == nil { state.revoked[session] = Date() }
            state.revoked = state.revoked.filter { $0.value > horizon }
            state.cursor = databaseNow.addingTimeInterval(-5)
        }
    }
}
