import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// No job holds a connection longer than the pool's statement timeout.
@Suite struct StatementTimeoutTests {
    @Test func aStatementBeyondTheTimeoutIsCancelledAndTheConnectionServesTheNext() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1, statementTimeout: .milliseconds(200)))
        // Connected first: the bound is on the statement, not on a connect under a loaded run
        // (a full run with three servers starting beside it took 6.9 s to connect and query).
        _ = try await pool.withConnection { try $0.query("SELECT 1").count }
        let started = ContinuousClock.now
        await #expect(throws: PostgresError.self) {
            do {
                try await pool.withConnection { _ = try $0.query("SELECT pg_sleep(60)") }
            } catch let error as PostgresError {
                #expect(error.code == .queryTimeout, "\(error)")
                throw error
            }
        }
        // Cancelled, not finished: far sooner than the statement's 60 s. Not a speed bound
        // (a loaded CI run took 3.6 s for what takes 0.2 s alone, and failed a 3 s bound).
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try await pool.withConnection { try $0.query("SELECT 1").first!.decode(0, as: Int.self) } == 1)
        await pool.close()
        await database.drop()
    }

    @Test func maintenanceLiftsTheTimeoutForItsOwnTransactionOnly() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1, statementTimeout: .milliseconds(200)))
        try await pool.transaction { connection in
            try connection.execute("SET LOCAL statement_timeout = 0")
            _ = try connection.query("SELECT pg_sleep(0.4)")
        }
        let setting: String = try await pool.withConnection { try $0.query("SHOW statement_timeout").first!.decode(0) }
        #expect(setting == "200ms")
        await pool.close()
        await database.drop()
    }
}
