import Foundation

/// The pool's work queue: a FIFO of jobs guarded by one condition variable.
///
/// `@unchecked Sendable`: every stored property is read and written only while holding
/// `condition`'s lock.
final class JobQueue: @unchecked Sendable {
    typealias Job = (PoolWorker, PostgresPool.Configuration) -> Void

    private let condition = NSCondition()
    private var jobs: [(job: Job, enqueued: ContinuousClock.Instant)] = []
    private var head = 0
    private var closed = false
    private var liveWorkers: Int
    private var exitWaiters: [@Sendable () -> Void] = []
    private var busy = 0
    private var totals = PostgresPool.Statistics.Totals()

    init(workers: Int) {
        liveWorkers = workers
    }

    /// Adds a job; `false` when the queue is closed.
    func enqueue(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append((job, .now))
        condition.signal()
        return true
    }

    /// Whether no job waits for a thread.
    var isEmpty: Bool {
        condition.lock()
        defer { condition.unlock() }
        return head == jobs.count
    }

    /// Counts a pipeline of `statements` reads sent together.
    func countPipeline(of statements: Int) {
        condition.lock()
        totals.pipelines += 1
        totals.pipelinedReads += statements
        condition.unlock()
    }

    /// Blocks the calling pool thread until a job is available; `nil` once closed and
    /// drained. `afterJob`: the thread has finished the job it took before.
    func next(afterJob: Bool) -> Job? {
        condition.lock()
        defer { condition.unlock() }
        if afterJob { busy -= 1 }
        while head == jobs.count && !closed {
            condition.wait()
        }
        guard head < jobs.count else { return nil }
        let (job, enqueued) = jobs[head]
        head += 1
        busy += 1
        totals.recordWait(ContinuousClock.now - enqueued)
        if head > 64 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    /// Adds one to a counter of ``PostgresPool/Statistics/Totals``.
    func count(_ counter: WritableKeyPath<PostgresPool.Statistics.Totals, Int>) {
        condition.lock()
        totals[keyPath: counter] += 1
        condition.unlock()
    }

    /// Why a job that reached its connection must not run, counted, or nil to run it: it
    /// waited longer than `maxWait`, or its client left. Asked when the job reaches its
    /// connection, not when it is queued: the wait is where a client gives up.
    ///
    /// The client is asked only after a wait of ``askClientAfter``: the peek is a syscall
    /// under the engine's lock, and asking on every step of every read cost the cheap reads
    /// 15–30 % of their server CPU (bench/ab, 3 rounds: `me` 153 → 181 µs a request, a post
    /// 169 → 207, Top 10 202 → 261). The jobs worth dropping are the backlog of a burst,
    /// which waits for seconds; a cheap read at 64 connections waits ~10 ms.
    func refusal(enqueuedAt enqueued: ContinuousClock.Instant, maxWait: Duration, presence: ClientPresence?) -> PostgresError? {
        let waited = ContinuousClock.now - enqueued
        if waited > maxWait {
            count(\.queueTimeouts)
            return PostgresError(code: .poolTimeout, message: "waited more than \(maxWait) for a database connection")
        }
        if waited >= Self.askClientAfter, presence?.hasLeft() == true {
            count(\.clientsGone)
            return PostgresError(code: .clientGone, message: "the client left while its read waited for a database connection")
        }
        return nil
    }

    /// The shortest wait after which a job's client is asked whether it is still there.
    static let askClientAfter: Duration = .milliseconds(50)

    /// `result`, after counting it if it is a statement timeout.
    func counted<T>(_ result: Result<T, any Error>) -> Result<T, any Error> {
        if case .failure(let error as PostgresError) = result, error.code == .queryTimeout { count(\.statementTimeouts) }
        return result
    }

    func statistics(size: Int) -> PostgresPool.Statistics {
        condition.lock()
        defer { condition.unlock() }
        return PostgresPool.Statistics(size: size, busy: busy, queued: jobs.count - head, totals: totals)
    }

    func close(onAllExited: @escaping @Sendable () -> Void) {
        condition.lock()
        closed = true
        let finished = liveWorkers == 0
        if !finished { exitWaiters.append(onAllExited) }
        condition.broadcast()
        condition.unlock()
        if finished { onAllExited() }
    }

    func workerExited() {
        condition.lock()
        liveWorkers -= 1
        var waiters: [@Sendable () -> Void] = []
        if liveWorkers == 0 { swap(&waiters, &exitWaiters) }
        condition.unlock()
        waiters.forEach { $0() }
    }
}
