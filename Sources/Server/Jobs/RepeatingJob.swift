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
        self.pass = {
            metrics?.increment(.jobRuns, label)
            do { try await pass() } catch {
                metrics?.increment(.jobFailures, label)
                throw error
            }
        }
    }

    /// Runs the first pass (its error is thrown: a job that cannot run once stops start-up),
    /// then repeats in the background.
    public func start() async throws {
        try await pass()
        let task = Task { [name, interval, logger, pass, leadership] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                // A cancelled sleep returns at once: a pass then would meet a closing pool.
                guard !Task.isCancelled else { return }
                guard leadership?.isLeader ?? true else { continue }
                do { try await pass() } catch { logger.warning("\(name) failed", ["error": .string(String(describing: error))]) }
            }
        }
        loop.withLock { $0 = task }
    }

    /// Stops repeating and waits for a pass in progress, so the pool can close after this.
    public func stop() async {
        let task = loop.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
    }
}
