import Domain
import Foundation
import Persistence
import PostgresDriver
import Synchronization
import DatabaseTestSupport
import Testing

/// A day's feed order is built in short steps (migration 0026) while posts keep being
/// written, continued by whichever instance comes next, and old days leave without
/// failing the writes that race them.
@Suite struct FeedDayBuildTests {
    /// 2026-12-03 in Korea; it starts at 2026-12-02 15:00 UTC.
    private static let day = KoreaDay("2026-12-03")!

    /// `count` posts of one influencer, alternately open and closed at the day's start, in
    /// alternating categories; their ids in order.
    private func posts(_ pool: PostgresPool, count: Int) async throws -> [Int] {
        try await pool.transaction { connection in
            let influencer: Int = try connection.query(
                "INSERT INTO influencers (username, full_name) VALUES ('day.builder', '빌더') RETURNING id").first!.decode(0)
            return try (0..<count).map { index in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                    VALUES (\(influencer), \("post \(index)"), \(index % 3 == 0 ? "food" : "pet"), \(Self.day.start)::timestamptz - interval '2 days', \(Self.day.start)::timestamptz + \(index % 2 == 0 ? 5 : -5) * interval '1 hour') RETURNING id
                    """)
                    .first!.decode(0)
            }
        }
    }

    private func step(_ pool: PostgresPool, batch: Int) async throws -> Bool {
        try await pool.statement { try $0.query("SELECT feed_day_build_step(\(Self.day.description)::date, \(Self.day.start), \(batch))").first!.decode(0) }
    }

    /// Open posts of the day as (id, category), the day's ranks as the same, and the
    /// day's open counts per category.
    private func state(_ pool: PostgresPool) async throws -> (open: Set<String>, ranked: Set<String>, counts: [String: Int], complete: Bool) {
        try await pool.withConnection { connection in
            let open = try connection.query("SELECT id || ':' || category_id FROM posts WHERE group_buying_end >= \(Self.day.start)")
                .map { try $0.decode(0, as: String.self) }
            let ranked = try connection.query("""
                SELECT f.post_id || ':' || f.category_id FROM feed_ranks f
                WHERE f.day = \(Self.day.description)::date AND f.rank = feed_rank(f.post_id, f.day)
                """).map { try $0.decode(0, as: String.self) }
            let counts = try connection.query("SELECT category_id, open_count FROM feed_open_counts WHERE day = \(Self.day.description)::date AND open_count > 0")
                .reduce(into: [String: Int]()) { $0[try $1.decode(0, as: String.self)] = try $1.decode(1, as: Int.self) }
            let complete: Bool = try connection.query("SELECT built_through IS NULL FROM feed_days WHERE day = \(Self.day.description)::date").first!.decode(0)
            return (Set(open), Set(ranked), counts, complete)
        }
    }

    @Test func aDayBuiltInStepsWhilePostsAreWrittenRanksExactlyItsOpenPosts() async throws {
        let database = try await TestDatabase.migrated()
        defer { Task { await database.drop() } }
        let ids = try await posts(database.pool, count: 30)
        // Two steps of 4 open posts: ids[0...14] visited, the rest not yet.
        #expect(try await step(database.pool, batch: 4) == false)
        #expect(try await step(database.pool, batch: 4) == false)
        #expect(try await state(database.pool).complete == false)

        // Writes between steps, on both sides of where the build stands.
        try await database.pool.transaction { connection in
            let influencer: Int = try connection.query("SELECT id FROM influencers").first!.decode(0)
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                VALUES (\(influencer), 'new open', 'pet', \(Self.day.start)::timestamptz - interval '1 day', \(Self.day.start)::timestamptz + interval '1 day'),
                       (\(influencer), 'new closed', 'pet', \(Self.day.start)::timestamptz - interval '1 day', \(Self.day.start)::timestamptz - interval '1 hour')
                """)
            try connection.execute("UPDATE posts SET category_id = 'beauty' WHERE id IN (\(ids[2]), \(ids[24]))")
            try connection.execute("UPDATE posts SET group_buying_end = \(Self.day.start)::timestamptz - interval '1 hour' WHERE id IN (\(ids[4]), \(ids[20]))")
            try connection.execute("UPDATE posts SET group_buying_end = \(Self.day.start)::timestamptz + interval '1 hour' WHERE id IN (\(ids[3]), \(ids[27]))")
            try connection.execute("DELETE FROM posts WHERE id IN (\(ids[6]), \(ids[22]))")
        }

        // Another instance finishes the build.
        let other = PostgresPool(.init(url: database.url, size: 1))
        try await PostgresFeedRepository(pool: other, buildBatch: 4).prepare(day: Self.day)
        await other.close()

        let (open, ranked, counts, complete) = try await state(database.pool)
        #expect(complete)
        #expect(open.count == 14, "15 open of 30, one new, two closed, two reopened, two deleted: \(open.count)")
        #expect(ranked == open)
        let expected = open.reduce(into: [String: Int]()) { $0[String($1.split(separator: ":")[1]), default: 0] += 1 }
        #expect(counts == expected)
    }

    /// Runs `held` in a transaction on one connection; once it has run, `write` on
    /// another; waits until that write waits for a lock (`marker` is a text of its SQL),
    /// then runs `finish` and commits. Whether the write waited, and what it returned.
    private func race(_ database: TestDatabase, held: @escaping @Sendable (PostgresConnection) throws -> Void,
                      write: @escaping @Sendable (PostgresConnection) throws -> Int, marker: String,
                      finish: @escaping @Sendable (PostgresConnection) throws -> Void = { _ in }) async throws -> (waited: Bool, written: Int) {
        let holder = PostgresPool(.init(url: database.url, size: 1))
        let writer = PostgresPool(.init(url: database.url, size: 1))
        defer { Task { await holder.close(); await writer.close() } }
        let holding = Atomic<Bool>(false)
        let written = Task {
            while !holding.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
            return try await writer.withConnection(write)
        }
        let waited = try await holder.withConnection { connection in
            try connection.execute("BEGIN")
            try held(connection)
            holding.store(true, ordering: .releasing)
            var waiting = false
            for _ in 0..<400 where !waiting {
                usleep(25_000)
                // Activity is read once per transaction unless the snapshot is cleared.
                _ = try connection.query("SELECT pg_stat_clear_snapshot()")
                waiting = try connection.query("""
                    SELECT count(*) > 0 FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%' || \(marker) || '%' AND pid <> pg_backend_pid()
                    """).first!.decode(0)
            }
            try finish(connection)
            try connection.execute("COMMIT")
            return waiting
        }
        return (waited, try await written.value)
    }

    @Test func aPostWrittenWhileOldDaysAreDiscardedIsSaved() async throws {
        let database = try await TestDatabase.migrated()
        defer { Task { await database.drop() } }
        _ = try await posts(database.pool, count: 4)
        try await PostgresFeedRepository(pool: database.pool).prepare(day: Self.day)
        let influencer: Int = try await database.pool.withConnection { try $0.query("SELECT id FROM influencers").first!.decode(0) }
        let discardUntil = Self.day.next.description, dayStart = Self.day.start

        // The discard's last step holds the day when the post is written.
        let (waited, written) = try await race(database, held: { connection in
            while try connection.query("SELECT feed_days_discard_step(\(discardUntil)::date, 1000)").first!.decode(0, as: Bool.self) == false {}
        }, write: { connection in
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                VALUES (\(influencer), 'written meanwhile', 'pet', \(dayStart)::timestamptz, \(dayStart)::timestamptz + interval '3 days')
                """)
        }, marker: "written meanwhile")
        #expect(waited, "the write never waited for the discard")
        #expect(written == 1)
        let days: Int = try await database.pool.withConnection { try $0.query("SELECT count(*)::int FROM feed_days").first!.decode(0) }
        #expect(days == 0)
    }

    @Test func aPostDeletedDuringAStepWaitsForItInsteadOfDeadlocking() async throws {
        let database = try await TestDatabase.migrated()
        defer { Task { await database.drop() } }
        let ids = try await posts(database.pool, count: 4)
        let day = Self.day.description, dayStart = Self.day.start

        // A step holds the feed lock when the delete comes, and then ranks that very post.
        let (waited, deleted) = try await race(database, held: { connection in
            _ = try connection.query("SELECT pg_advisory_xact_lock(feed_lock_key())")
        }, write: { connection in
            try connection.execute("DELETE FROM posts WHERE id = \(ids[0]) AND product_name = 'post 0'")
        }, marker: "product_name = 'post 0'", finish: { connection in
            while try connection.query("SELECT feed_day_build_step(\(day)::date, \(dayStart), 1000)").first!.decode(0, as: Bool.self) == false {}
        })
        #expect(waited, "the delete never waited for the step")
        #expect(deleted == 1)
        let (_, ranked, _, complete) = try await state(database.pool)
        #expect(complete)
        #expect(ranked.count == 1, "post 2 only (post 0 deleted, 1 and 3 closed): \(ranked)")
    }
}
