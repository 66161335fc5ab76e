import Foundation
import Persistence
import PostgresDriver
import Synchronization
import DatabaseTestSupport
import Testing
import Workers

/// ``PostgresPool/read(_:_:decode:)``: reads queued together go out as one pipeline, and
/// each caller still gets exactly its own answer or its own error.
@Suite struct PipelinedReadTests {
    /// `count` reads of `SELECT 1000 / $1` queued while the pool's one connection is held,
    /// so they all wait and leave together; their outcomes in order.
    private static func readsQueuedBehindAHeldConnection(_ pool: PostgresPool, divisors: [Int]) async throws -> [Result<Int, any Error>] {
        async let holder: Void = pool.withConnection { _ in Thread.sleep(forTimeInterval: 0.3) }
        try await Task.sleep(for: .milliseconds(50))
        let outcomes = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for (index, divisor) in divisors.enumerated() {
                group.addTask {
                    do { return (index, .success(try await pool.read("SELECT 1000 / \(divisor)::int") { try $0.first!.decode(0) })) } catch { return (index, .failure(error)) }
                }
            }
            var outcomes = [Result<Int, any Error>?](repeating: nil, count: divisors.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.map { $0! }
        }
        try await holder
        return outcomes
    }

    @Test func readsQueuedTogetherSharePipelinesAndEachGetsItsOwnRows() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let divisors = Array(1...40)
        let outcomes = try await Self.readsQueuedBehindAHeldConnection(pool, divisors: divisors)
        #expect(try outcomes.map { try $0.get() } == divisors.map { 1000 / $0 })
        // 40 reads, at most 16 a pipeline: 16 + 16 + 8.
        let totals = pool.statistics().totals
        #expect(totals.pipelines == 3)
        #expect(totals.pipelinedReads == 40)
        await pool.close()
        await database.drop()
    }

    /// A statement that fails aborts the rest of its pipeline on the server; those are sent
    /// again, so only the failing read's caller sees an error, and the connection goes on.
    @Test func aFailingReadFailsOnlyItsCaller() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let divisors = [1, 2, 3, 0, 5, 6, 7, 8]
        let outcomes = try await Self.readsQueuedBehindAHeldConnection(pool, divisors: divisors)
        for (divisor, outcome) in zip(divisors, outcomes) {
            switch (divisor, outcome) {
            case (0, .failure(let error as PostgresError)): #expect(error.sqlState == "22012", "division_by_zero, not \(error)")
            case (0, let other): Issue.record("dividing by zero gave \(other)")
            case (_, .success(let value)): #expect(value == 1000 / divisor)
            case (_, .failure(let error)): Issue.record("1000 / \(divisor) failed with another read's error: \(error)")
            }
        }
        #expect(pool.statistics().totals.pipelines == 1)
        #expect(try await pool.read("SELECT 42") { try $0.first!.decode(0, as: Int.self) } == 42)
        await pool.close()
        await database.drop()
    }

    /// The connection was terminated while idle: the pipeline never reached the server, so
    /// it is sent again on a fresh connection, as a lone statement would be.
    @Test func readsSurviveAConnectionLostWhileTheyWaited() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let backend = try await pool.read("SELECT pg_backend_pid()") { try $0.first!.decode(0, as: Int.self) }
        let terminated = try await database.pool.withConnection { try $0.query("SELECT pg_terminate_backend(\(backend))").first!.decode(0, as: Bool.self) }
        #expect(terminated)
        let divisors = Array(1...10)
        let outcomes = try await Self.readsQueuedBehindAHeldConnection(pool, divisors: divisors)
        #expect(try outcomes.map { try $0.get() } == divisors.map { 1000 / $0 })
        let after = try await pool.read("SELECT pg_backend_pid()") { try $0.first!.decode(0, as: Int.self) }
        #expect(after != backend)
        await pool.close()
        await database.drop()
    }

    /// A read whose client left while it waited is not sent, like any other job.
    @Test func aReadWhoseClientLeftIsNotSent() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let left = Mutex(false)
        async let holder: Void = pool.withConnection { _ in Thread.sleep(forTimeInterval: 0.3) }
        try await Task.sleep(for: .milliseconds(50))
        async let gone: Result<Int, any Error> = {
            do { return .success(try await pool.read("SELECT 1", presence: ClientPresence { left.withLock { $0 } }) { try $0.first!.decode(0) }) }
            catch { return .failure(error) }
        }()
        async let stays: Int = pool.read("SELECT 2") { try $0.first!.decode(0) }
        try await Task.sleep(for: .milliseconds(50))
        left.withLock { $0 = true }
        try await holder
        guard case .failure(let error as PostgresError) = await gone else { Issue.record("the read ran"); return }
        #expect(error.code == .clientGone)
        #expect(try await stays == 2)
        #expect(pool.statistics().totals.clientsGone == 1)
        await pool.close()
        await database.drop()
    }
}
