import Dispatch
import Foundation
import PostgresDriver
import Synchronization
import Workers

/// How fresh each replica's data is, measured on threads and connections of its own: one
/// samples the primary's WAL insert position every `interval`, and one per replica reads
/// that replica's replay position as often. A replica that has replayed a sample's position
/// has everything committed before that sample was taken, so its data is as fresh as the
/// newest such sample; with none of the samples kept (they cover twice the lag bound), it
/// is further behind than the bound.
///
/// Not tasks, not the pools the reads use: a measurement that waits behind the requests it
/// routes comes late, and a late one can misjudge (a replica behind across a gap between
/// polls longer than the samples' window would measure no lag at all). Late or missing
/// measurements only make data look older, never fresher.
final class ReplicaLagMonitor: Sendable {
    /// One replica's last observation.
    struct Observation: Sendable {
        let at: ContinuousClock.Instant
        /// What it had replayed (`nil`: unreachable, or no longer a standby).
        let replayed: WALPosition?
        /// When the newest sample it had replayed was taken.
        let freshAt: ContinuousClock.Instant?
    }

    private struct State {
        var samples: [(at: ContinuousClock.Instant, position: WALPosition)] = []
        var observations: [Observation?]
    }

    private let primary: DedicatedConnection
    private let replicas: [DedicatedConnection]
    private let interval: Duration
    private let window: Duration
    private let state: Mutex<State>
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let threads = DispatchGroup()

    init(primaryURL: String, primaryMode: PostgresConnection.StatementMode, replicaURLs: [String],
         replicaMode: PostgresConnection.StatementMode, interval: Duration, maxLag: Duration) {
        primary = DedicatedConnection(url: primaryURL, mode: primaryMode, applicationName: "market09-lag")
        replicas = replicaURLs.map { DedicatedConnection(url: $0, mode: replicaMode, applicationName: "market09-lag") }
        self.interval = interval
        window = maxLag * 2 + interval * 2
        state = Mutex(State(observations: Array(repeating: nil, count: replicaURLs.count)))
    }

    /// Each replica's last observation.
    var observations: [Observation?] { state.withLock { $0.observations } }

    /// Samples the primary, then observes every replica, once (blocking).
    func measure() {
        sample()
        for index in replicas.indices { observe(index) }
    }

    /// Starts the sampling thread and one thread per replica.
    func start() {
        running.store(true, ordering: .releasing)
        repeatOnThread("market09-lag-primary") { $0.sample() }
        for index in replicas.indices { repeatOnThread("market09-lag-\(index)") { $0.observe(index) } }
    }

    /// Stops the threads (if started), waits for them, and closes the connections (also
    /// those of measurements made without threads).
    func stop() async {
        if running.exchange(false, ordering: .acquiringAndReleasing) {
            for _ in 0...replicas.count { wake.signal() }
            _ = try? await BlockingWork.run { [threads] in threads.wait() }
        }
        primary.close()
        replicas.forEach { $0.close() }
    }

    private func repeatOnThread(_ name: String, _ body: @escaping @Sendable (ReplicaLagMonitor) -> Void) {
        threads.enter()
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let thread = Thread { [self] in
            defer { threads.leave() }
            while running.load(ordering: .acquiring) {
                body(self)
                // Woken early by stop().
                if wake.wait(timeout: .now() + seconds) == .success { return }
            }
        }
        thread.name = name
        thread.start()
    }

    private func sample() {
        let at = ContinuousClock.now
        // Read after `at`: whatever committed before `at` is at or before this position.
        guard let position = try? primary.run({ try $0.walInsertPosition() }) else { return }
        state.withLock { state in
            state.samples.append((at, position))
            // Those that can still date a lag within the window, and the newest older one:
            // a replica that has not replayed even that one is beyond the window.
            if let older = state.samples.lastIndex(where: { at - $0.at > window }), older > 0 {
                state.samples.removeFirst(older)
            }
        }
    }

    private func observe(_ index: Int) {
        let at = ContinuousClock.now
        let polled: (inRecovery: Bool, replayed: WALPosition?)? = try? replicas[index].run { connection in
            let row = try connection.query("SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text").single()
            return (try row.decode(0), (try row.decode(1, as: String?.self)).flatMap { WALPosition($0) })
        }
        state.withLock { state in
            guard let polled, polled.inRecovery, let replayed = polled.replayed else {
                state.observations[index] = Observation(at: at, replayed: nil, freshAt: nil)
                return
            }
            let freshAt = state.samples.last { $0.position <= replayed }?.at
            state.observations[index] = Observation(at: at, replayed: replayed, freshAt: freshAt)
        }
    }
}
