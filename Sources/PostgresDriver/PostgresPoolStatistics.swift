extension PostgresPool {
    /// What a pool is doing now and has done since it started (for `/metrics`).
    public struct Statistics: Sendable {
        /// Connections (and threads) of the pool.
        public let size: Int
        /// Threads running a job (a query, a transaction, or a request task's step).
        public let busy: Int
        /// Jobs waiting for a thread.
        public let queued: Int
        /// Counts since start.
        public let totals: Totals

        /// Counts since the pool started.
        public struct Totals: Sendable {
            /// Upper bounds (seconds) of the wait histogram's buckets.
            public static let waitBuckets: [Double] = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1]
            /// Jobs that waited at most each bucket's bound (not cumulative) for a thread.
            public var waits = [Int](repeating: 0, count: waitBuckets.count)
            /// Jobs started, and their total wait for a thread in seconds.
            public var waitCount = 0
            public var waitSeconds = 0.0
            /// Statements cancelled by `statement_timeout`.
            public var statementTimeouts = 0
            /// Jobs refused because they waited longer than `maxQueueWait` for a thread.
            public var queueTimeouts = 0
            /// Reads not run because their client had left while they waited for a thread.
            public var clientsGone = 0
            /// Pipelines of two or more reads sent together, and the reads they carried.
            public var pipelines = 0
            public var pipelinedReads = 0

            mutating func recordWait(_ wait: Duration) {
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                if let bucket = Self.waitBuckets.firstIndex(where: { seconds <= $0 }) { waits[bucket] += 1 }
                waitCount += 1
                waitSeconds += seconds
            }
        }
    }
}
