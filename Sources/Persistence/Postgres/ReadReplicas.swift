import Domain
import Foundation
import PostgresDriver
import Synchronization
import Workers

/// Where a read may run: the primary's pool, or a replica's. Repositories ask for it per
/// read, so the choice follows the request (its ``RequestScope``) and the replicas' health.
public protocol ReadPoolSource: Sendable {
    /// A pool for one read that must see the primary's WAL up to `after` (`nil`: any).
    func readPool(after: WALPosition?) -> PostgresPool
}

extension PostgresPool: ReadPoolSource {
    /// A single database: every read on it.
    public func readPool(after: WALPosition?) -> PostgresPool { self }
}

/// The reads of one repository as one request makes them: the replica choice by the
/// request's last write, its client's presence on every job.
public struct ScopedReads: Sendable {
    public let source: any ReadPoolSource
    let after: WALPosition?
    let presence: ClientPresence?

    public init(_ source: any ReadPoolSource) {
        self.init(source, after: nil, presence: nil)
    }

    private init(_ source: any ReadPoolSource, after: WALPosition?, presence: ClientPresence?) {
        self.source = source
        self.after = after
        self.presence = presence
    }

    /// A pool for one read now.
    public func readPool() -> ScopedPool {
        ScopedPool(source.readPool(after: after), presence: presence)
    }

    /// A pool for one read that must also see `position` (a write of this instance's own).
    public func readPool(alsoAfter position: WALPosition?) -> ScopedPool {
        ScopedPool(source.readPool(after: [after, position].compactMap { $0 }.max()), presence: presence)
    }

    /// The same reads for the request `scope` describes.
    public func scoped(_ scope: RequestScope) -> ScopedReads {
        ScopedReads(source, after: scope.readsAfter.map(WALPosition.init(value:)), presence: scope.presence)
    }
}

extension RequestScope {
    /// The client's presence as the pools take it.
    var presence: ClientPresence? { clientHasLeft.map(ClientPresence.init(hasLeft:)) }
}

extension ScopedPool {
    /// The same pool for the request `scope` describes.
    public func scoped(_ scope: RequestScope) -> ScopedPool { scoped(presence: scope.presence) }
}

/// Streaming replicas for reads, each used while its data is at most `maxLag` plus two poll
/// intervals old and skipped otherwise (behind, unreachable, promoted); with none usable,
/// reads go to the primary. How fresh each replica is, ``ReplicaLagMonitor`` measures: the
/// age of the newest primary WAL sample it has replayed (an idle primary makes no lag,
/// unlike `now() - pg_last_xact_replay_timestamp()`).
public final class ReadReplicas: ReadPoolSource, Sendable {
    /// One replica as last polled.
    public struct Status: Sendable {
        public let url: String
        /// Whether reads may use it now.
        public let healthy: Bool
        /// How old its data was when polled, in seconds (`nil` when it could not be polled,
        /// or is further behind than the samples go). Includes up to one poll interval of
        /// sampling.
        public let lagSeconds: Double?
        /// How far it had replayed.
        public let replayed: WALPosition?
    }

    public let primary: PostgresPool
    private let pools: [PostgresPool]
    private let urls: [String]
    private let maxLag: Duration
    private let pollInterval: Duration
    private let monitor: ReplicaLagMonitor
    private let next = Atomic<Int>(0)

    public init(primary: PostgresPool, urls: [String], poolSize: Int, statementTimeout: Duration?, maxLag: Duration,
                pollInterval: Duration = .milliseconds(200), statementMode: PostgresConnection.StatementMode = .prepared) {
        self.primary = primary
        self.urls = urls
        self.pools = urls.map { PostgresPool(.init(url: $0, size: poolSize, connectTimeoutSeconds: 2, statementTimeout: statementTimeout,
                                                   statementMode: statementMode)) }
        self.maxLag = maxLag
        self.pollInterval = pollInterval
        self.monitor = ReplicaLagMonitor(primaryURL: primary.settings.url, primaryMode: primary.settings.statementMode, replicaURLs: urls,
                                         replicaMode: statementMode, interval: pollInterval, maxLag: maxLag)
    }

    /// A replica whose data is recent enough and that has replayed `after` (in turn), else
    /// the primary.
    public func readPool(after: WALPosition?) -> PostgresPool {
        let now = ContinuousClock.now
        let observations = monitor.observations
        let usable = observations.indices.filter { index in
            guard let observation = observations[index], fresh(observation, now: now) else { return false }
            guard let after else { return true }
            return observation.replayed.map { $0 >= after } ?? false
        }
        guard !usable.isEmpty else { return primary }
        let turn = next.add(1, ordering: .relaxed).newValue
        return pools[usable[turn % usable.count]]
    }

    /// Whether a replica so observed may serve a read at `now`: its data is at most the lag
    /// bound plus two polls old (a caught-up replica's is up to two polls old by the time
    /// it is read; `m09_read_after` lasts as long).
    private func fresh(_ observation: ReplicaLagMonitor.Observation, now: ContinuousClock.Instant) -> Bool {
        guard let freshAt = observation.freshAt else { return false }
        return now - freshAt <= maxLag + pollInterval * 2
    }

    /// The replicas as last polled, judged now.
    public func statuses() -> [Status] {
        let now = ContinuousClock.now
        return zip(urls, monitor.observations).map { url, observation in
            let lag = observation.flatMap { observation in observation.freshAt.map { observation.at - $0 } }
            return Status(url: url, healthy: observation.map { fresh($0, now: now) } ?? false,
                          lagSeconds: lag.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 },
                          replayed: observation?.replayed)
        }
    }

    /// Each replica's pool as it is now, in `urls` order (for `/metrics`).
    public func poolStatistics() -> [PostgresPool.Statistics] {
        pools.map { $0.statistics() }
    }

    /// The primary's WAL insert position now: a commit that returned before this call is
    /// at or before it.
    public func writePosition() async throws -> WALPosition {
        try await primary.statement { try $0.walInsertPosition() }
    }

    /// Measures once, then keeps measuring every `pollInterval` until ``stop()``.
    public func start() async {
        await poll()
        monitor.start()
    }

    /// Measures once now (the primary, then every replica).
    public func poll() async {
        _ = try? await BlockingWork.run(name: "replica-poll") { [monitor] in monitor.measure() }
    }

    /// Stops measuring and closes the replicas' pools (not the primary's).
    public func stop() async {
        await monitor.stop()
        for pool in pools { await pool.close() }
    }
}
