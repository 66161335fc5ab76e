import Foundation
import HTTPServer
import Synchronization

/// A pass of work run now and then every `interval` until ``stop()``: the shape every
/// background job of the server shares (revocation polling, feed maintenance, auth
/// housekeeping). A failed pass is logged and retried at the next interval. With a
/// ``JobLeadership`` the repeats run only while this instance leads; the first pass, at
/// start, runs on every instance (each job is safe twice, and an instance should not serve
/// before, say, today's feed order exists).
public final class RepeatingJob: Sendable {
    private let name: String
    private let interval: Duration
    private let logger: Logger
    private let leadership: JobLeadership?
    private let pass: @Sendable () async throws -> Void
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let passed = PassFlag()

    /// Whether a pass has completed since the start (what readiness waits for).
    public var hasCompletedAPass: Bool { passed.value.load(ordering: .acquiring) }

    private final class PassFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A job named `name` (in its log lines and metrics) that runs `pass` every
    /// `interval`; its passes and failures are counted in `metrics`.
    public init(name: String, interval: Duration, logger: Logger, metrics: Metrics? = nil, leadership: JobLeadership? = nil,
                pass: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.logger = logger
        self.leadership = leadership
        // Label values are names without spaces (`auth_housekeeping`).
        let label = name.replacingOccurrences(of: " ", with: "_")
        let passed = passed
        self.pass = {
            metrics?.increment(.jobRuns, label)
            do { try await pass() } catch {
                metrics?.increment(.jobFailures, label)
                throw error
            }
            passed.value.store(true, ordering: .releasing)
        }
    }

    /// Runs the first pass (its error is thrown: a job that cannot run once stops start-up),
    /// then repeats in the background.
    public func start() async throws {
        try await pass()
        loop.withLock { $0 = Task { await repeats() } }
    }

    /// Starts without waiting: the first pass runs in the background (on every instance,
    /// retried every `retry` until it succeeds), then the repeats. What serves meanwhile
    /// must not need it (see ``hasCompletedAPass``): `serve` listens at once this way, where
    /// its first feed pass on a fresh 10 M-post database took 93 s.
    public func startInBackground(retry: Duration = .seconds(5)) {
        loop.withLock {
            $0 = Task { [self] in
                while !Task.isCancelled {
                    do {
                        try await pass()
                        break
                    } catch {
                        logger.warning("\(name) first pass failed; retrying", ["error": .string(String(describing: error))])
                        try? await Task.sleep(for: retry)
                    }
                }
                await repeats()
            }
        }
    }

    /// A pass every `interval` while this instance leads, until cancelled.
    private func repeats() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            // A cancelled sleep returns at once: a pass then would meet a closing pool.
            guard !Task.isCancelled else { return }
            guard leadership?.isLeader ?? true else { continue }
            do { try await pass() } catch { logger.warning("\(name) failed", ["error": .string(String(describing: error))]) }
        }
    }

    /// This job as a service whose start does not wait for its first pass.
    public var inBackground: some Service { Background(job: self) }

    private struct Background: Service {
        let job: RepeatingJob
        func start() async throws { job.startInBackground() }
        func stop() async { await job.stop() }
    }

    /// Stops repeating and waits for a pass in progress, so the pool can close after this.
    public func stop() async {
        let task = loop.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
    }
}
