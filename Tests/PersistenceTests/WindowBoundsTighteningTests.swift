import Domain
import Foundation
import Persistence
import PostgresDriver
import Synchronization
import DatabaseTestSupport
import Testing
import Workers

/// The bounds that date and status filters derive their index ranges from (migration
/// 0015) narrow again when the post that held a bound is deleted or corrected (0037):
/// before, one post dated 1900 or 9999 widened them for good. Narrowing never misses a
/// post whose writer is still in flight.
@Suite struct WindowBoundsTighteningTests {
    private func bounds(_ database: TestDatabase) async throws -> String {
        try await database.pool.withConnection { try $0.query("SELECT row(b.*)::text FROM post_window_bounds b").single().decode(0) }
    }

    private static func insert(_ connection: PostgresConnection, influencer: Int, name: String, start: String, posted: String) throws -> Int {
        try connection.query("""
            INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at, source)
            VALUES (\(influencer), \(name), 'food', \(start)::timestamptz, \(start)::timestamptz + interval '2 days', \(posted)::timestamptz, 'import')
            RETURNING id
            """).single().decode(0)
    }

    @Test func boundsNarrowWhenTheirPostIsDeletedOrCorrected() async throws {
        let database = try await TestDatabase.migrated()
        let feed = PostgresFeedRepository(pool: database.pool)
        let (influencer, normal): (Int, Int) = try await database.pool.withConnection { connection in
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('bounds.kim') RETURNING id").single().decode(0)
            return (influencer, try Self.insert(connection, influencer: influencer, name: "보통", start: "2026-12-01T00:00:00Z", posted: "2026-11-30T00:00:00Z"))
        }
        let normalBounds = try await bounds(database)
        #expect(normalBounds == "(t,\"2 days\",\"1 day\",\"1 day\")")
        #expect(try await feed.tightenWindowBounds() == false, "nothing to narrow")

        // Legacy rows from before every door checked posted_at.
        let ancient = try await database.pool.withConnection { try Self.insert($0, influencer: influencer, name: "1900", start: "2026-12-01T00:00:00Z", posted: "1900-01-01T00:00:00Z") }
        let future = try await database.pool.withConnection { try Self.insert($0, influencer: influencer, name: "9999", start: "2026-12-01T00:00:00Z", posted: "9999-01-01T00:00:00Z") }
        #expect(try await bounds(database) != normalBounds)

        try await database.pool.withConnection { _ = try $0.execute("DELETE FROM posts WHERE id = \(ancient)") }
        try await database.pool.withConnection { _ = try $0.execute("UPDATE posts SET posted_at = '2026-11-29T00:00:00Z' WHERE id = \(future)") }
        #expect(try await feed.tightenWindowBounds() == true)
        #expect(try await bounds(database) == "(t,\"2 days\",\"1 day\",\"2 days\")", "the corrected post's lead, the deleted one's gone")
        try await database.pool.withConnection { _ = try $0.execute("DELETE FROM posts WHERE id = \(future)") }
        #expect(try await feed.tightenWindowBounds() == true)
        #expect(try await bounds(database) == normalBounds)
        _ = normal
        await database.drop()
    }

    @Test func narrowingWaitsForWritersInFlightAndCountsTheirPosts() async throws {
        let database = try await TestDatabase.migrated()
        let feed = PostgresFeedRepository(pool: database.pool)
        let (influencer, wide): (Int, Int) = try await database.pool.withConnection { connection in
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('bounds.lee') RETURNING id").single().decode(0)
            _ = try Self.insert(connection, influencer: influencer, name: "보통", start: "2026-12-01T00:00:00Z", posted: "2026-11-30T00:00:00Z")
            return (influencer, try Self.insert(connection, influencer: influencer, name: "300일", start: "2026-12-01T00:00:00Z", posted: "2026-02-04T00:00:00Z"))
        }
        try await database.pool.withConnection { _ = try $0.execute("DELETE FROM posts WHERE id = \(wide)") }
        // A writer in flight whose post lies inside the old bounds (so it widened nothing)
        // but outside the narrowed ones: narrowing now would lose it from filtered lists.
        let writer = Mutex(try PostgresConnection(url: database.url))
        defer { writer.withLock { $0.close() } }
        try await BlockingWork.run { () throws in
            try writer.withLock { connection in
                try connection.execute(script: "BEGIN")
                _ = try Self.insert(connection, influencer: influencer, name: "200일", start: "2026-12-01T00:00:00Z", posted: "2026-05-15T00:00:00Z")
            }
        }
        await #expect(throws: PostgresError.self, "it gives up after 500 ms rather than narrow past the writer") {
            try await feed.tightenWindowBounds()
        }
        #expect(try await bounds(database) == "(t,\"2 days\",\"1 day\",\"300 days\")")
        try await BlockingWork.run { () throws in try writer.withLock { try $0.execute(script: "COMMIT") } }
        #expect(try await feed.tightenWindowBounds() == true)
        #expect(try await bounds(database) == "(t,\"2 days\",\"1 day\",\"200 days\")")
        await database.drop()
    }
}
