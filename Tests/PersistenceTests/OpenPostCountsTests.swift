import Domain
import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// "Open now" per category from the quarter-hour end counters (migration 0035) answers what
/// counting the day's closings post by post answered (0016), at every instant of a day and
/// through every kind of post write.
@Suite struct OpenPostCountsTests {
    /// 2026-12-03 in Korea; it starts at 2026-12-02 15:00 UTC, on a quarter.
    private static let day = KoreaDay("2026-12-03")!

    /// Instants from before the day's start to past its end, 7 min 13 s apart (never on a
    /// quarter twice alike), and every quarter boundary of the day exactly and a
    /// microsecond either side.
    private static let instants: SQL = """
        SELECT at FROM generate_series(\(day.start)::timestamptz - interval '20 minutes', \(day.start)::timestamptz + interval '25 hours',
                                       interval '7 minutes 13 seconds') at
        UNION SELECT \(day.start)::timestamptz + k * interval '15 minutes' + d * interval '1 microsecond'
              FROM generate_series(-1, 97) k, generate_series(-1, 1) d
        """

    /// (instant, category) pairs compared, and those where the two answers differ.
    private func compare(_ connection: PostgresConnection, dayStart: Date) throws -> (compared: Int, distinct: Int, wrong: [String]) {
        let rows = try connection.query("""
            WITH instants AS (\(Self.instants))
            SELECT i.at::text, n.category_id, n.open_count, o.open_count
            FROM instants i
            CROSS JOIN LATERAL open_post_counts(\(Self.day.description)::date, \(dayStart), i.at) n
            JOIN LATERAL (
                SELECT c.id AS category_id,
                       (COALESCE(f.open_count, 0) - (SELECT count(*) FROM posts p WHERE p.category_id = c.id
                                                     AND p.group_buying_end >= \(dayStart) AND p.group_buying_end < i.at))::int AS open_count
                FROM categories c LEFT JOIN feed_open_counts f ON f.day = \(Self.day.description)::date AND f.category_id = c.id) o
              ON o.category_id = n.category_id
            """)
        var wrong: [String] = [], values = Set<Int>()
        for row in rows {
            let (new, old): (Int, Int) = (try row.decode(2), try row.decode(3))
            values.insert(new)
            if new != old { wrong.append("\(try row.decode(0, as: String.self)) \(try row.decode(1, as: String.self)): \(new), counted \(old)") }
        }
        return (rows.count, values.count, wrong)
    }

    /// Slots whose counter differs from the posts ending in them.
    private func wrongSlots(_ connection: PostgresConnection) throws -> Int {
        try connection.query("""
            SELECT count(*)::int FROM (
                SELECT slot, category_id FROM (SELECT slot, category_id, ends FROM post_end_slots
                                               UNION ALL SELECT end_slot(group_buying_end), category_id, -1 FROM posts) x
                GROUP BY slot, category_id HAVING sum(ends) <> 0) wrong
            """).first!.decode(0)
    }

    @Test func openNowFromQuarterCountersEqualsCountingEveryClosingThroughWrites() async throws {
        let database = try await TestDatabase.migrated()
        defer { Task { await database.drop() } }
        try await database.pool.transaction { connection in
            let influencer: Int = try connection.query(
                "INSERT INTO influencers (username, full_name) VALUES ('quarter.counter', '쿼터') RETURNING id").first!.decode(0)
            // 400 posts ending from 2 h before the day to 2 h after it, 3 min 37 s apart, in
            // every category; 97 more ending exactly on the day's quarters, and one on its start.
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                SELECT \(influencer)::bigint, 'post ' || g, (SELECT array_agg(id ORDER BY id) FROM categories)[1 + g % (SELECT count(*) FROM categories)::int],
                       \(Self.day.start)::timestamptz - interval '3 days', \(Self.day.start)::timestamptz - interval '2 hours' + g * interval '3 minutes 37 seconds'
                FROM generate_series(0, 399) g
                UNION ALL
                SELECT \(influencer)::bigint, 'quarter ' || k, CASE WHEN k % 2 = 0 THEN 'food' ELSE 'pet' END,
                       \(Self.day.start)::timestamptz - interval '3 days', \(Self.day.start)::timestamptz + k * interval '15 minutes'
                FROM generate_series(0, 96) k
                """)
        }
        try await PostgresFeedRepository(pool: database.pool, buildBatch: 100).prepare(day: Self.day)

        try await database.pool.withConnection { connection in
            #expect(try wrongSlots(connection) == 0)
            let result = try compare(connection, dayStart: Self.day.start)
            #expect(result.compared > 13 * 400, "every category at every instant")
            #expect(result.distinct > 50, "the counts move through the day")
            #expect(result.wrong.isEmpty, "\(result.wrong.prefix(10))")
            // A day start off the quarters (not Korea's; the function takes any) counts the
            // part before its first quarter in the index.
            let off = try compare(connection, dayStart: Self.day.start.addingTimeInterval(7 * 60 + 0.5))
            #expect(off.wrong.isEmpty, "\(off.wrong.prefix(10))")
        }

        // Every kind of write: ends moved within and across quarters and days, categories
        // changed, a start alone changed, posts deleted, posts added in one statement.
        try await database.pool.transaction { connection in
            try connection.execute("UPDATE posts SET group_buying_end = group_buying_end + interval '4 minutes' WHERE id % 5 = 0")
            try connection.execute("UPDATE posts SET group_buying_end = group_buying_end - interval '1 day' WHERE id % 11 = 0")
            try connection.execute("UPDATE posts SET category_id = 'beauty' WHERE id % 7 = 0 AND category_id <> 'beauty'")
            try connection.execute("UPDATE posts SET group_buying_start = group_buying_start + interval '1 hour' WHERE id % 3 = 0")
            try connection.execute("DELETE FROM posts WHERE id % 13 = 0")
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                SELECT influencer_id, product_name || ' again', category_id, group_buying_start, group_buying_end + interval '1 minute'
                FROM posts WHERE id % 4 = 0
                """)
        }
        try await database.pool.withConnection { connection in
            #expect(try wrongSlots(connection) == 0)
            let result = try compare(connection, dayStart: Self.day.start)
            #expect(result.wrong.isEmpty, "\(result.wrong.prefix(10))")
        }
    }
}
