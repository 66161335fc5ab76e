import Foundation
import Synchronization

/// At most `threads` threads, at reduced CPU priority, with a bounded queue: for
/// CPU-heavy work that clients can trigger (the password KDF, ≈ 0.37 s of a core at
/// 600,000 PBKDF2 iterations here).
///
/// A thread per call let 64 concurrent sign-ins run 64 KDFs on two cores and starve every
/// read. Here at most `threads` run at once, at most `queueLimit` wait, and the next
/// caller is refused at once with ``WorkersBusy`` rather
/// than queued behind work its client will have given up on. Threads run at nice 10, so
/// the scheduler prefers request threads whenever both want a core; they are started when
/// work arrives and end when the queue is empty, so an idle instance holds none.
public final class BoundedWorkers: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        /// Threads started and not yet ended.
        var threads = 0
        /// Jobs accepted and not finished (waiting, or taken by a thread that may not have
        /// started yet): the bound is on these, not on `waiting`, which lags thread start.
        var outstanding = 0
        var waiting: Int { jobs.count - head }
    }

    private let name: String
    private let threadLimit: Int
    private let queueLimit: Int
    private let state = Mutex(State())

    /// Work on at most `threads` threads named `name`, with at most `queueLimit` waiting.
    public init(name: String, threads: Int, queueLimit: Int) {
        precondition(threads > 0 && queueLimit >= 0)
        self.name = name
        self.threadLimit = threads
        self.queueLimit = queueLimit
    }

    /// Jobs accepted and not yet started.
    public var waitingCount: Int { state.withLock { $0.waiting } }

    /// Runs `body` on a worker thread; throws ``WorkersBusy``
    /// without waiting when every thread is busy and `queueLimit` jobs already wait.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job: @Sendable () -> Void = { continuation.resume(with: Result { try body() }) }
            let outcome: (accepted: Bool, startThread: Bool) = state.withLock { state in
                guard state.outstanding - threadLimit < queueLimit else { return (false, false) }
                state.outstanding += 1
                state.jobs.append(job)
                guard state.threads < threadLimit else { return (true, false) }
                state.threads += 1
                return (true, true)
            }
            if !outcome.accepted {
                continuation.resume(throwing: WorkersBusy(retryAfterSeconds: 1))
            } else if outcome.startThread {
                let thread = Thread { [self] in work() }
                thread.name = name
                thread.start()
            }
        }
    }

    private func work() {
        // Linux keeps nice per thread (who = 0 is the calling thread): KDFs yield the cores.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        while let job = next() {
            job()
            state.withLock { $0.outstanding -= 1 }
        }
    }

    /// The next waiting job, or `nil` after counting this thread out (under the lock, so
    /// a job queued meanwhile starts a new thread).
    private func next() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.waiting > 0 else {
                state.threads -= 1
                state.jobs.removeAll(keepingCapacity: true)
                state.head = 0
                return nil
            }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head >= 1_024 {
                state.jobs.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }
}

/// Every thread of a ``BoundedWorkers`` is busy and its queue is full: try again after
/// `retryAfterSeconds` (the API answers 503 `busy` with `Retry-After`).
public struct WorkersBusy: Error, Equatable, Sendable {
    public let retryAfterSeconds: Int

    public init(retryAfterSeconds: Int) {
        self.retryAfterSeconds = retryAfterSeconds
    }
}
