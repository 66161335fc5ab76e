import Foundation

/// A read waiting to be sent: its statement, when and for whom it was asked, and where its
/// rows go (decoded and handed to the caller on the thread that ran the pipeline).
struct PendingRead: Sendable {
    let statement: PipelinedStatement
    let enqueued: ContinuousClock.Instant
    let presence: ClientPresence?
    let deliver: @Sendable (Result<PostgresRows, any Error>) -> Void
}

/// The reads not yet taken by a pipeline, and whether a job that will take them is queued.
struct PendingReads {
    var reads: [PendingRead] = []
    var flushQueued = false
}

extension PostgresPool {
    /// The most reads one pipeline carries: enough to take a burst's backlog in a few round
    /// trips, few enough that their results (a few kilobytes each at most) never fill the
    /// socket buffers libpq's blocking mode relies on.
    static let maxPipeline = 16

    /// Runs one single-statement read and decodes its rows, sent in one pipeline with the
    /// other reads queued at the same moment (see ``PostgresConnection/pipeline(_:)``).
    ///
    /// The cheap reads' cost is mostly the round trip, not the statement: a profile of
    /// `/v1/me` at 64 connections put 35 % of the server's CPU in the query, most of it the
    /// `send` that wakes the backend and the `poll`/`recv` that waits for it, and
    /// PostgreSQL's own CPU per request at half of the server's. With the requests' tasks
    /// queued on the pool's threads, the reads of the tasks queued together are sent as one
    /// pipeline. When nothing else is queued the read runs at once on the calling pool
    /// thread, as ``withConnection(_:)`` would: nothing to wait for, nothing to share.
    ///
    /// `decode` runs on the pool thread with the rows; its value is returned. Errors are as
    /// ``withConnection(presence:_:)``'s: a read that waited too long or whose client left
    /// (`presence`) is not sent.
    public func read<T: Sendable>(_ statement: SQL, presence: ClientPresence? = nil,
                                  decode: @escaping @Sendable (PostgresRows) throws -> T) async throws -> T {
        let (sql, parameters) = statement.rendered
        let statement = PipelinedStatement(sql: sql, texts: parameters.map { $0.postgresText })
        // Refused here, for this caller alone: inside a pipeline it would fail its neighbours.
        try refuseNULBytes(statement.texts)
        if let worker = PoolWorker.current, worker.queue === queue, queue.isEmpty, pendingReads.withLock({ $0.reads.isEmpty }) {
            return try await withConnection(presence: presence) { connection in try decode(connection.query(statement.sql, texts: statement.texts)) }
        }
        return try await withCheckedThrowingContinuation { continuation in
            let read = PendingRead(statement: statement, enqueued: .now, presence: presence) { rows in
                continuation.resume(with: Result { try decode(rows.get()) })
            }
            let scheduleFlush = pendingReads.withLock { pending in
                pending.reads.append(read)
                defer { pending.flushQueued = true }
                return !pending.flushQueued
            }
            if scheduleFlush { enqueueFlush() }
        }
    }

    /// Queues the job that sends the pending reads; when the pool is closed, fails them.
    private func enqueueFlush() {
        let accepted = queue.enqueue { [self] worker, configuration in flushReads(worker, configuration) }
        guard !accepted else { return }
        let stranded = pendingReads.withLock { pending in
            defer { pending = PendingReads() }
            return pending.reads
        }
        let closed = PostgresError(code: .poolClosed, message: "the connection pool is closed")
        for read in stranded { read.deliver(.failure(closed)) }
    }

    /// Takes up to ``maxPipeline`` pending reads and runs them in one pipeline on this
    /// thread's connection; a read queued meanwhile finds no flush queued and queues one,
    /// so another free thread may send it while this one waits for its results.
    private func flushReads(_ worker: PoolWorker, _ configuration: Configuration) {
        let (taken, more) = pendingReads.withLock { pending in
            let taken = Array(pending.reads.prefix(Self.maxPipeline))
            pending.reads.removeFirst(taken.count)
            pending.flushQueued = !pending.reads.isEmpty
            return (taken, pending.flushQueued)
        }
        if more { enqueueFlush() }
        var reads: [PendingRead] = []
        for read in taken {
            if let refusal = queue.refusal(enqueuedAt: read.enqueued, maxWait: configuration.maxQueueWait, presence: read.presence) {
                read.deliver(.failure(refusal))
            } else {
                reads.append(read)
            }
        }
        guard !reads.isEmpty else { return }
        let statements = reads.map(\.statement)
        // A connection lost before any answer is reopened and the reads sent again, once
        // (``run(_:on:configuration:)``), as a lone statement would be.
        let outcome = Self.run({ connection -> [Result<PostgresRows, any Error>] in
            let results = connection.pipeline(statements)
            if case .failure(let error as PostgresError) = results.first, error.code == .connectionFailure, !connection.isOpen { throw error }
            return results
        }, on: &worker.connection, configuration: configuration)
        if reads.count > 1 { queue.countPipeline(of: reads.count) }
        switch outcome {
        case .success(let results):
            for (read, result) in zip(reads, results) { read.deliver(queue.counted(result)) }
        case .failure(let error):
            for read in reads { read.deliver(.failure(error)) }
        }
    }
}
