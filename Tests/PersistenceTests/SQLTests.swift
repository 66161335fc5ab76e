import Foundation
@testable import Persistence
import TestSupport
import Testing

/// Statements whose values are bound where they are written.
@Suite struct SQLTests {
    @Test func valuesBecomeNumberedParametersInOrderAndFragmentsAreRenumbered() {
        let id = UUID(uuidString: "00000000-0000-0000-0000-000000000007")!
        let nickname: String? = nil
        let picture: String? = "https://cdn.example/p.jpg"
        let condition: SQL = "AND role = \(raw: "'admin'") AND created_at < \(Date(timeIntervalSince1970: 0))"
        let statement: SQL = """
            UPDATE users SET nickname = COALESCE(\(nickname), nickname), profile_url = \(picture) WHERE id = \(id) \(condition) AND \(42) > 0
            """
        let (text, parameters) = statement.rendered
        #expect(text == "UPDATE users SET nickname = COALESCE($1, nickname), profile_url = $2 WHERE id = $3 AND role = 'admin' AND created_at < $4 AND $5 > 0")
        #expect(parameters.map(\.postgresText) == [nil, "https://cdn.example/p.jpg", "00000000-0000-0000-0000-000000000007",
                                                    Date(timeIntervalSince1970: 0).postgresText, "42"])
    }

    /// A value that looks like SQL stays a value.
    @Test func aValueNeverBecomesSQLText() async throws {
        let database = try await TestDatabase.migrated()
        let hostile = "x'); DROP TABLE users; --"
        let (text, isNull, intact) = try await database.pool.withConnection { connection in
            let row = try #require(try connection.query(sql: "SELECT \(hostile)::text, \(Optional<Int>.none)::int IS NULL, (SELECT count(*) FROM users) >= 0").first)
            return (try row.decode(0, as: String.self), try row.decode(1, as: Bool.self), try row.decode(2, as: Bool.self))
        }
        #expect(text == hostile && isNull && intact)
        await database.drop()
    }
}
