import Foundation
import Persistence
import PostgresDriver
import Synchronization
import DatabaseTestSupport
import Testing
import Workers

@Suite struct PostgresPoolTests {
    /// A job whose client has left by the time it reaches a connection is not run: it
    /// fails `clientGone` and is counted; one whose client is there runs as before.
    @Test func aJobWhoseClientLeftWhileItWaitedIsNotRun() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let ran = Mutex(0)
        // The one connection is held while the job queues; the client leaves meanwhile.
        let left = Mutex(false)
        async let holder: Void = pool.withConnection { _ in Thread.sleep(forTimeInterval: 0.3) }
        try await Task.sleep(for: .milliseconds(50))
        async let queued: Result<Int, any Error> = {
            do { return .success(try await pool.withConnection(presence: ClientPresence { left.withLock { $0 } }) { _ in ran.withLock { $0 += 1; return $0 } }) }
            catch { return .failure(error) }
        }()
        try await Task.sleep(for: .milliseconds(50))
        left.withLock { $0 = true }
        _ = try await holder
        let result = await queued
        guard case .failure(let error as PostgresError) = result else { Issue.record("the job ran: \(result)"); return }
        #expect(error.code == .clientGone)
        #expect(ran.withLock { $0 } == 0)
        #expect(pool.statistics().totals.clientsGone == 1)
        // A job that did not wait runs without asking (the peek is a syscall under the
        // engine's lock: asking on every step cost the cheap reads 15–30 % of their CPU).
        let asked = Mutex(0)
        let value = try await pool.withConnection(presence: ClientPresence { asked.withLock { $0 += 1 }; return false }) { _ in 7 }
        #expect(value == 7)
        #expect(asked.withLock { $0 } == 0)
        await pool.close()
        await database.drop()
    }

    @Test func parallelQueriesRunOnEveryConnectionAtOnce() async throws {
        let database = try await TestDatabase.migrated()
        // A gate: a separate session holds an exclusive advisory lock; every job waits for
        // a shared one, so jobs pile up on their connections until the gate opens.
        let gate = PostgresPool(.init(url: database.url, size: 1))
        try await gate.withConnection { _ = try $0.query("SELECT pg_advisory_lock(4242)") }

        async let backendIDs = withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await database.pool.withConnection { connection in
                        let pid = try connection.query("SELECT pg_backend_pid(), pg_advisory_lock_shared(4242) /* parallel-probe */").first!.decode(0, as: Int.self)
                        _ = try connection.query("SELECT pg_advisory_unlock_shared(4242)")
                        return pid
                    }
                }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        var waiting = 0
        for _ in 0..<400 where waiting < 4 {
            waiting = try await gate.withConnection { connection in
                try connection.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%parallel-probe%' AND pid <> pg_backend_pid()"
                ).first!.decode(0, as: Int.self)
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        try await gate.withConnection { _ = try $0.query("SELECT pg_advisory_unlock(4242)") }

        #expect(waiting == 4, "all four connections were busy at once")
        #expect(try await backendIDs.count == 4)
        await gate.close()
        await database.drop()
    }

    @Test func aThrownErrorRollsTheTransactionBack() async throws {
        let database = try await TestDatabase.migrated()
        struct Abort: Error {}

        await #expect(throws: Abort.self) {
            try await database.pool.transaction { connection in
                try connection.query("INSERT INTO influencers (username) VALUES (\("rolled_back"))")
                throw Abort()
            }
        }

        let count = try await database.pool.withConnection { connection in
            try connection.query("SELECT count(*) FROM influencers").first!.decode(0, as: Int.self)
        }
        #expect(count == 0)
        await database.drop()
    }

    @Test func sqlStatesMapToTypedErrorsWithTheirConstraint() async throws {
        let database = try await TestDatabase.migrated()
        try await database.pool.withConnection { connection in
            _ = try connection.query("INSERT INTO influencers (username) VALUES (\("dup"))")
        }

        let duplicate = await #expect(throws: PostgresError.self) {
            try await database.pool.withConnection { connection in
                _ = try connection.query("INSERT INTO influencers (username) VALUES (\("dup"))")
            }
        }
        #expect(duplicate?.code == .uniqueViolation)
        #expect(duplicate?.constraint == "influencers_username_key")

        let orphan = await #expect(throws: PostgresError.self) {
            try await database.pool.withConnection { connection in
                _ = try connection.query(
                    "INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end) VALUES (\(424242), 'x', 'food', now(), now())")
            }
        }
        #expect(orphan?.code == .foreignKeyViolation)

        let negative = await #expect(throws: PostgresError.self) {
            try await database.pool.withConnection { connection in
                _ = try connection.query("INSERT INTO influencers (username, followers_count) VALUES ('neg', \(-1))")
            }
        }
        #expect(negative?.code == .checkViolation)
        await database.drop()
    }

    @Test func rowsDecodeIntoTypedValuesAndNullOnlyIntoOptionals() async throws {
        let database = try await TestDatabase.migrated()
        let id = UUID()
        let instant = Date(timeIntervalSince1970: 1_795_960_706.25)

        let row = try await database.pool.withConnection { connection in
            let row = try connection.query(
                "SELECT \(id)::uuid, \(instant)::timestamptz, \(42)::int, \(true)::bool, NULL::text, 'korean 한글'::text").first!
            return (try row.decode(0, as: UUID.self), try row.decode(1, as: Date.self), try row.decode(2, as: Int.self),
                    try row.decode(3, as: Bool.self), try row.decode(4, as: String?.self), try row.decode(5, as: String.self))
        }
        #expect(row.0 == id)
        #expect(row.1 == instant)
        #expect(row.2 == 42)
        #expect(row.3 == true)
        #expect(row.4 == nil)
        #expect(row.5 == "korean 한글")

        let nullIntoString = await #expect(throws: PostgresError.self) {
            try await database.pool.withConnection { connection in
                try connection.query("SELECT NULL::text").first!.decode(0, as: String.self)
            }
        }
        #expect(nullIntoString?.code == .decoding)

        // Integers, booleans and timestamps are read from libpq's bytes: edges and refusals.
        let edges = try await database.pool.withConnection { connection in
            let row = try connection.query("""
                SELECT 0::bigint, -7::int, 9223372036854775807::bigint, (-9223372036854775807 - 1)::bigint, false,
                       '1969-12-31 23:59:59.5+00'::timestamptz, ''::text
                """).first!
            return (try row.decode(0, as: Int.self), try row.decode(1, as: Int.self), try row.decode(2, as: Int.self),
                    try row.decode(3, as: Int.self), try row.decode(4, as: Bool.self), try row.decode(5, as: Date.self),
                    try row.decode(6, as: String.self))
        }
        #expect(edges.0 == 0 && edges.1 == -7 && edges.2 == Int.max && edges.3 == Int.min && edges.4 == false)
        #expect(edges.5 == Date(timeIntervalSince1970: -0.5))
        #expect(edges.6 == "")
        for text in ["", "-", "12a", "99999999999999999999", "1.5"] {
            let refused = await #expect(throws: PostgresError.self, "\(text)") {
                try await database.pool.withConnection { try $0.query("SELECT \(text)::text").first!.decode(0, as: Int.self) }
            }
            #expect(refused?.code == .decoding)
        }
        await database.drop()
    }

    @Test func statementsArePreparedOncePerConnection() async throws {
        let database = try await TestDatabase.migrated()
        let prepared = try await database.pool.withConnection { connection in
            for value in 0..<5 { try connection.query("SELECT \(value)::int + 1") }
            return try connection.query("SELECT count(*) FROM pg_prepared_statements WHERE statement = 'SELECT $1::int + 1'").first!.decode(0, as: Int.self)
        }
        #expect(prepared == 1)
        await database.drop()
    }

    @Test func serializationFailuresAreRetriedInsideTheTransaction() async throws {
        let database = try await TestDatabase.migrated()
        let attempts = AttemptCounter()

        let value = try await database.pool.transaction(maxAttempts: 3) { connection in
            if attempts.increment() == 1 {
                try connection.execute(script: "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$")
            }
            return try connection.query("SELECT 7").first!.decode(0, as: Int.self)
        }

        #expect(value == 7)
        #expect(attempts.value == 2)
        await database.drop()
    }

    @Test func aClosedPoolRefusesWork() async throws {
        let database = try await TestDatabase.migrated()
        await database.pool.close()

        let error = await #expect(throws: PostgresError.self) { try await database.pool.ping() }
        #expect(error?.code == .poolClosed)
        await database.drop()
    }
}

extension PostgresPool {
    /// Whether a job waits in the queue.
    var hasQueuedJob: Bool { statistics().queued > 0 }
}

/// Holds a one-connection pool's connection until a job has waited in the queue for 300 ms,
/// past the tests' 200 ms limit. Nothing here depends on when the test's own task runs: a
/// loaded test run starved it long enough for a fixed 600 ms blocker to end before the
/// late job was even queued, and the late job then ran.
func holdTheOnlyConnectionUntilAJobHasWaited(_ pool: PostgresPool) async throws -> Task<Void, any Error> {
    let started = AttemptCounter(), released = AttemptCounter()
    let blocker = Task {
        try await pool.withConnection { _ in
            _ = started.increment()
            let deadline = Date().addingTimeInterval(30)
            while released.value == 0 && Date() < deadline { usleep(5_000) }  // a pool thread of its own
        }
    }
    while started.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
    Task {
        while !pool.hasQueuedJob { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(300))
        _ = released.increment()
    }
    return blocker
}

/// Counts attempts across retries of a pool job (which runs on one pool thread at a time).
final class AttemptCounter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}

@Suite struct PostgresPoolQueueTests {
    @Test func jobsThatWaitedTooLongForAConnectionFailInsteadOfRunning() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1, maxQueueWait: .milliseconds(200)))
        let ran = AttemptCounter()
        // Connected first: under a loaded test run, opening the connection inside the
        // blocker's job took over the 200 ms and failed the blocker instead.
        try await pool.ping()

        let blocker = try await holdTheOnlyConnectionUntilAJobHasWaited(pool)
        let late = await #expect(throws: PostgresError.self) {
            try await pool.withConnection { _ in _ = ran.increment() }
        }
        try await blocker.value

        #expect(late?.code == .poolTimeout)
        #expect(ran.value == 0)
        try await pool.ping()
        await pool.close()
        await database.drop()
    }
}

/// The pool as a task executor: tasks that prefer it run on its threads and query there.
@Suite struct PostgresPoolExecutorTests {
    private static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }

    @Test func tasksPreferringThePoolQueryOnTheThreadTheyRunOn() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 2))
        let observed = try await Task(executorPreference: pool) {
            let before = Self.threadName()
            let queryThread = try await pool.withConnection { _ in Self.threadName() }
            try await Task.sleep(for: .milliseconds(10))
            let afterSleep = Self.threadName()
            return (before, queryThread, afterSleep)
        }.value
        #expect(observed.0.hasPrefix("postgres-"), "the task starts on a pool thread")
        #expect(observed.1 == observed.0, "its query runs where it is, without a hop")
        #expect(observed.2.hasPrefix("postgres-"), "it resumes on a pool thread")

        // Ordinary callers still hand their queries over, and results are the same.
        #expect(try await pool.withConnection { try $0.query("SELECT 41 + 1").first!.decode(0, as: Int.self) } == 42)
        await pool.close()
        await database.drop()
    }

    @Test func manyTasksOnASmallPoolAllFinishWithTheirOwnResults() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 2))
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<200 {
                group.addTask(executorPreference: pool) {
                    // Suspends between two queries, as a handler awaiting something else would.
                    let first = try await pool.withConnection { try $0.query("SELECT \(index)::int * 2").first!.decode(0, as: Int.self) }
                    await Task.yield()
                    let second = try await pool.transaction { try $0.query("SELECT \(first)::int + 1").first!.decode(0, as: Int.self) }
                    return (index, second)
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.value == $0.key * 2 + 1 })
        await pool.close()
        await database.drop()
    }

    @Test func aTaskThatWaitedTooLongInTheQueueGetsPoolTimeoutForItsQuery() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1, maxQueueWait: .milliseconds(200)))
        let blocker = try await holdTheOnlyConnectionUntilAJobHasWaited(pool)
        let late = await #expect(throws: PostgresError.self) {
            try await Task(executorPreference: pool) { try await pool.ping() }.value
        }
        try await blocker.value
        #expect(late?.code == .poolTimeout)
        try await Task(executorPreference: pool) { try await pool.ping() }.value
        await pool.close()
        await database.drop()
    }
}
