import Foundation
import PostgresDriver
import DatabaseTestSupport
import Testing

/// A value bound by ``SQL`` reaches the server as a value (its rendering is unit-tested
/// in PostgresDriverTests).
@Suite struct SQLTests {
    /// A value that looks like SQL stays a value.
    @Test func aValueNeverBecomesSQLText() async throws {
        let database = try await TestDatabase.migrated()
        let hostile = "x'); DROP TABLE users; --"
        let (text, isNull, intact) = try await database.pool.withConnection { connection in
            let row = try #require(try connection.query("SELECT \(hostile)::text, \(Optional<Int>.none)::int IS NULL, (SELECT count(*) FROM users) >= 0").first)
            return (try row.decode(0, as: String.self), try row.decode(1, as: Bool.self), try row.decode(2, as: Bool.self))
        }
        #expect(text == hostile && isNull && intact)
        await database.drop()
    }
}
