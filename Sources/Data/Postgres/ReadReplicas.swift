import Foundation
import Synchronization

/// Where a read may run: the primary's pool, or a replica's. Repositories ask for it per
/// read, so the choice follows the request (``ReadConsistency``) and the replicas' health.
public protocol ReadPoolSource: Sendable {
    /// A pool for one read of the current task.
    func readPool() -> PostgresPool
}

extension PostgresPool: ReadPoolSource {
    /// A single database: every read on it.
    public func readPool() -> PostgresPool { self }
}

/// The write a request must see: set for the request's task from its client's last
/// write (a cookie, or this instance's memory of its session), read by ``ReadReplicas``.
public enum ReadConsistency {
    /// A read in this task runs on a replica only if that replica has replayed this far.
    @TaskLocal public static var after: WALPosition?
}

/// Streaming replicas for reads, each skipped while it lags more than `maxLag` behind the
/// primary or cannot be reached; with none healthy, reads go to the primary.
///
/// Lag is measured against the primary's own clock-free history: every `pollInterval` the
/// primary's WAL insert position is sampled, and a replica's lag is the age of the oldest
/// sample it has not replayed (zero when it has replayed the newest: an idle primary makes
/// no lag, unlike `now() - pg_last_xact_replay_timestamp()`). A replica is therefore used
/// only while its data is at most `maxLag` plus two poll intervals old, polls late or not.
public final class ReadReplicas: ReadPoolSource, Sendable {
    /// One replica as last polled.
    public struct Status: Sendable {
        public let url: String
        public let healthy: Bool
        /// Seconds behind the primary (`nil` when it could not be polled).
        public let lagSeconds: Double?
        /// How far it had replayed.
        public let replayed: WALPosition?
    }

    private struct Replica {
        let url: String
        let pool: PostgresPool
    }

    private struct State {
        var samples: [(at: ContinuousClock.Instant, position: WALPosition)] = []
        var statuses: [Status]
        /// Each replica's lag as last measured, and when.
        var lags: [Duration?] = []
        var polledAt: ContinuousClock.Instant?
    }

    public let primary: PostgresPool
    private let replicas: [Replica]
    private let maxLag: Duration
    private let pollInterval: Duration
    private let state: Mutex<State>
    private let next = Atomic<Int>(0)
    private let loop = Mutex<Task<Void, Never>?>(nil)

    public init(primary: PostgresPool, urls: [String], poolSize: Int, statementTimeout: Duration?, maxLag: Duration,
                pollInterval: Duration = .milliseconds(200), statementMode: PostgresConnection.StatementMode = .prepared) {
        self.primary = primary
        self.replicas = urls.map { Replica(url: $0, pool: PostgresPool(.init(url: $0, size: poolSize, connectTimeoutSeconds: 2,
                                                                              statementTimeout: statementTimeout, statementMode: statementMode))) }
        self.maxLag = maxLag
        self.pollInterval = pollInterval
        self.state = Mutex(State(statuses: urls.map { Status(url: $0, healthy: false, lagSeconds: nil, replayed: nil) }))
    }

    /// A healthy replica that has replayed ``ReadConsistency/after`` (in turn), else the primary.
    /// Its lag as last polled plus the time since must stay within the lag bound plus two
    /// polls (what `m09_read_after` lasts): the poll is a task, and a busy or paused process
    /// runs it late, so reads then go to the primary until the next poll.
    public func readPool() -> PostgresPool {
        let after = ReadConsistency.after
        let now = ContinuousClock.now
        let usable: [Int] = state.withLock { state in
            guard let polledAt = state.polledAt else { return [] }
            return state.statuses.indices.filter { index in
                let status = state.statuses[index]
                guard status.healthy, let lag = state.lags[index], lag + (now - polledAt) <= maxLag + pollInterval * 2 else { return false }
                guard let after else { return true }
                return status.replayed.map { $0 >= after } ?? false
            }
        }
        guard !usable.isEmpty else { return primary }
        let turn = next.add(1, ordering: .relaxed).newValue
        return replicas[usable[turn % usable.count]].pool
    }

    /// The replicas as last polled.
    public func statuses() -> [Status] { state.withLock { $0.statuses } }

    /// The primary's WAL insert position now: a commit that returned before this call is
    /// at or before it.
    public func writePosition() async throws -> WALPosition {
        try await primary.statement { try $0.walInsertPosition() }
    }

    /// Polls once, then every `pollInterval` until ``stop()``.
    public func start() async {
        await poll()
        let task = Task { [pollInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                guard !Task.isCancelled else { return }
                await self.poll()
            }
        }
        loop.withLock { $0 = task }
    }

    /// Stops polling and closes the replicas' pools (not the primary's).
    public func stop() async {
        let task = loop.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
        for replica in replicas { await replica.pool.close() }
    }

    /// Samples the primary, then each replica, and decides which are healthy.
    public func poll() async {
        let now = ContinuousClock.now
        if let position = try? await writePosition() {
            state.withLock { state in
                state.samples.append((now, position))
                // Kept while they can still decide a lag under the bound, and the newest of
                // the older ones too: a replica that has not replayed even that one is
                // further behind than the bound. (Without it, after a gap between polls
                // longer than the window, a replica far behind measured no lag at all.)
                if let older = state.samples.lastIndex(where: { now - $0.at > maxLag * 2 + pollInterval * 2 }), older > 0 {
                    state.samples.removeFirst(older)
                }
            }
        }
        var statuses: [Status] = []
        var lags: [Duration?] = []
        for replica in replicas {
            let polled: (inRecovery: Bool, replayed: WALPosition?)? = try? await replica.pool.statement { connection in
                let row = try connection.query("SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text").first!
                return (try row.decode(0), (try row.decode(1, as: String?.self)).flatMap { WALPosition($0) })
            }
            guard let polled, polled.inRecovery, let replayed = polled.replayed else {
                statuses.append(Status(url: replica.url, healthy: false, lagSeconds: nil, replayed: nil))
                lags.append(nil)
                continue
            }
            let lag = state.withLock { state -> Duration? in
                guard let newest = state.samples.last else { return nil }
                if replayed >= newest.position { return .zero }
                // The oldest sample not replayed: the replica misses WAL written since then.
                return state.samples.first { $0.position > replayed }.map { now - $0.at } ?? nil
            }
            let seconds = lag.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
            statuses.append(Status(url: replica.url, healthy: lag.map { $0 <= maxLag } ?? false, lagSeconds: seconds, replayed: replayed))
            lags.append(lag)
        }
        state.withLock { state in
            state.statuses = statuses
            state.lags = lags
            state.polledAt = now
        }
    }
}
