import Foundation
import Synchronization

/// A fixed set of PostgreSQL connections, each owned by one thread of the pool.
///
/// libpq blocks, so no libpq call ever runs on Swift's cooperative thread pool: `async`
/// callers enqueue a synchronous closure, a pool thread runs it with its connection, and a
/// continuation hands the result back. A connection broken by a server restart is dropped
/// and reopened on the next job; a job that failed before reaching the server on a stale
/// connection is retried once on a fresh one, so the first request after a restart
/// succeeds instead of failing.
public final class PostgresPool: Sendable {
    /// What the pool needs to open connections.
    public struct Configuration: Sendable {
        /// `postgres://` URI or libpq key/value string.
        public var url: String
        /// Number of connections (and threads).
        public var size: Int
        /// Seconds libpq waits for a connection before failing.
        public var connectTimeoutSeconds: Int
        /// Longest a job may wait in the queue for a connection; older jobs fail with
        /// ``PostgresError/Code/poolTimeout`` instead of running for a caller that has
        /// most likely given up (and delaying everyone queued behind it).
        public var maxQueueWait: Duration
        /// PostgreSQL's `statement_timeout` for every session of the pool (`nil`: the role's
        /// or database's default; `.zero`: none, whatever that default).
        /// The server's pool sets it so no request holds a connection longer; a statement
        /// cancelled by it fails with ``PostgresError/Code/queryTimeout``. Maintenance work
        /// lifts it for its own transaction (`SET LOCAL statement_timeout = 0`).
        public var statementTimeout: Duration?
        /// Named prepared statements, or unnamed ones for PgBouncer's transaction mode.
        public var statementMode: PostgresConnection.StatementMode

        public init(url: String, size: Int = 4, connectTimeoutSeconds: Int = 5, maxQueueWait: Duration = .seconds(10), statementTimeout: Duration? = nil,
                    statementMode: PostgresConnection.StatementMode = .prepared) {
            self.statementMode = statementMode
            self.url = url
            self.size = size
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.maxQueueWait = maxQueueWait
            self.statementTimeout = statementTimeout
        }
    }

    let configuration: Configuration
    /// What it was made with (its URL for connections of another kind to the same server).
    public var settings: Configuration { configuration }
    let queue: JobQueue
    /// Reads waiting to be sent together (``read(_:_:decode:)``).
    let pendingReads = Mutex(PendingReads())

    /// Starts `configuration.size` threads; connections open lazily on first use.
    public init(_ configuration: Configuration) {
        precondition(configuration.size > 0, "pool size must be positive")
        self.configuration = configuration
        self.queue = JobQueue(workers: configuration.size)
        for index in 0..<configuration.size {
            let thread = Thread { [queue, configuration] in
                nameCurrentThread("postgres-\(index)")
                let worker = PoolWorker(queue: queue)
                pthread_setspecific(PoolWorker.key, Unmanaged.passUnretained(worker).toOpaque())
                var finished = false
                while let job = queue.next(afterJob: finished) {
                    job(worker, configuration)
                    finished = true
                }
                worker.connection?.close()
                pthread_setspecific(PoolWorker.key, nil)
                queue.workerExited()
            }
            thread.start()
        }
    }

    /// Runs `body` on a pool thread with a connection and returns its result; not at all
    /// when it waited longer than the pool's `maxQueueWait`, or for a client that has left
    /// (`presence`, for work only that client wants).
    @discardableResult
    public func withConnection<T: Sendable>(
        presence: ClientPresence? = nil,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        if let worker = PoolWorker.current, worker.queue === queue {
            // Already on one of this pool's threads (a task that prefers the pool as its
            // executor): use its connection right here, no hop. The task's wait in the
            // queue counts as the job's.
            if let refusal = queue.refusal(enqueuedAt: worker.taskEnqueuedAt, maxWait: configuration.maxQueueWait, presence: presence) {
                throw refusal
            }
            return try queue.counted(Self.run(body, on: &worker.connection, configuration: configuration)).get()
        }
        return try await withCheckedThrowingContinuation { continuation in
            let enqueued = ContinuousClock.now
            let accepted = queue.enqueue { [queue] worker, configuration in
                if let refusal = queue.refusal(enqueuedAt: enqueued, maxWait: configuration.maxQueueWait, presence: presence) {
                    continuation.resume(throwing: refusal)
                    return
                }
                continuation.resume(with: queue.counted(Self.run(body, on: &worker.connection, configuration: configuration)))
            }
            if !accepted {
                continuation.resume(throwing: PostgresError(code: .poolClosed, message: "the connection pool is closed"))
            }
        }
    }

    /// Runs `body` in a transaction, running the whole transaction again (up to
    /// `maxAttempts` times) when PostgreSQL reports a serialization failure or deadlock.
    @discardableResult
    public func transaction<T: Sendable>(
        maxAttempts: Int = 3, presence: ClientPresence? = nil,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await statement(maxAttempts: maxAttempts, presence: presence) { connection in try connection.transaction(body) }
    }

    /// Runs `body`, whose single statement is its own transaction (no BEGIN/COMMIT round
    /// trips), running it again (up to `maxAttempts` times) when PostgreSQL reports a
    /// serialization failure or deadlock.
    @discardableResult
    public func statement<T: Sendable>(
        maxAttempts: Int = 3, presence: ClientPresence? = nil,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection(presence: presence) { connection in
            var attempt = 1
            while true {
                do {
                    return try body(connection)
                } catch let error as PostgresError where error.isTransient && attempt < maxAttempts {
                    attempt += 1
                }
            }
        }
    }

    /// What the pool is doing now and has done since it started, for metrics.
    public func statistics() -> Statistics {
        queue.statistics(size: configuration.size)
    }

    /// Answers whether the database accepts a trivial query.
    public func ping() async throws {
        try await withConnection { connection in
            _ = try connection.query("SELECT 1")
        }
    }

    /// Stops accepting work, lets queued jobs finish, closes every connection and returns
    /// once every pool thread has exited.
    public func close() async {
        await withCheckedContinuation { continuation in
            queue.close { continuation.resume() }
        }
    }

    /// Runs `body` on the connection in `slot`, opened (again) first when there is none or
    /// it is closed. A connection that breaks is dropped; the job runs once more on a fresh
    /// one only when it reused a connection and never reached the server (a connection the
    /// server closed while idle), so a statement is never sent twice.
    static func run<T, Connection: PooledConnection>(
        _ body: (Connection) throws -> T,
        on slot: inout Connection?,
        open: () throws -> Connection
    ) -> Result<T, any Error> {
        for attempt in 1...2 {
            let connection: Connection
            let reused: Bool
            if let existing = slot, existing.isOpen {
                connection = existing
                reused = true
            } else {
                slot?.close()
                do {
                    connection = try open()
                } catch {
                    slot = nil
                    return .failure(error)
                }
                slot = connection
                reused = false
            }
            let roundTripsBefore = connection.successfulRoundTrips
            do {
                return .success(try body(connection))
            } catch let error as PostgresError where error.code == .connectionFailure {
                connection.close()
                slot = nil
                let neverReachedServer = connection.successfulRoundTrips == roundTripsBefore
                if !(reused && neverReachedServer && attempt == 1) { return .failure(error) }
            } catch {
                return .failure(error)
            }
        }
        return .failure(PostgresError(code: .connectionFailure, message: "connection lost twice"))
    }

    /// ``run(_:on:open:)`` with a connection of this pool's configuration.
    static func run<T>(_ body: (PostgresConnection) throws -> T, on slot: inout PostgresConnection?, configuration: Configuration) -> Result<T, any Error> {
        run(body, on: &slot) {
            try PostgresConnection(url: configuration.url, connectTimeoutSeconds: configuration.connectTimeoutSeconds,
                                   statementTimeout: configuration.statementTimeout, mode: configuration.statementMode)
        }
    }
}

/// What the pool needs of a connection to keep it, drop it or retry on a fresh one (a
/// fake stands in for libpq in the pool's unit tests).
protocol PooledConnection: AnyObject {
    /// Whether it can still be used.
    var isOpen: Bool { get }
    /// Round trips that got an answer: unchanged across a failed job means the job never
    /// reached the server.
    var successfulRoundTrips: Int { get }
    func close()
}

extension PostgresConnection: PooledConnection {}

/// Names the calling thread for `top -H`, `perf` and `/proc` (at most 15 bytes). Written to
/// `/proc/thread-self/comm`: Foundation's `Thread.name` is applied only when the new thread
/// has not started before its creator records it, so some pool threads kept no name.
func nameCurrentThread(_ name: String) {
    _ = try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
}

/// The state of one pool thread, reachable (through a thread-specific key) from code
/// running on it.
///
/// `@unchecked Sendable`: only its own thread reads or writes `connection` and
/// `taskEnqueuedAt`; other threads only compare `queue`'s identity.
final class PoolWorker: @unchecked Sendable {
    var connection: PostgresConnection?
    /// When the task job now running on this thread was queued.
    var taskEnqueuedAt = ContinuousClock.now
    let queue: AnyObject

    init(queue: AnyObject) { self.queue = queue }

    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: PoolWorker? {
        pthread_getspecific(key).map { Unmanaged<PoolWorker>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// The pool as a task executor: a task started with `Task(executorPreference: pool)` (the
/// HTTP server's request tasks) runs on the pool's threads, in the same queue as queries,
/// and its queries run on the thread it is on (see ``withConnection(_:)``). A request
/// then crosses from the engine to a pool thread and back, instead of engine → cooperative
/// pool → pool thread → cooperative pool → engine. Blocking there is allowed: these are
/// the pool's own threads, never the cooperative pool's.
extension PostgresPool: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let enqueued = ContinuousClock.now
        let accepted = queue.enqueue { worker, _ in
            worker.taskEnqueuedAt = enqueued
            job.runSynchronously(on: executor)
        }
        // Closed (shutting down): run it here rather than leave a task suspended forever;
        // its queries fail with poolClosed.
        if !accepted { job.runSynchronously(on: executor) }
    }
}


