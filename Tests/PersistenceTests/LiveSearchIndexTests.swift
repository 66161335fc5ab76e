import DatabaseTestSupport
import Domain
import Foundation
@testable import Persistence
import PostgresDriver
import Synchronization
import Testing

/// The live posts' gram index (``LiveSearchIndex``): rolled forward as its cutoff ages, a
/// failed build replaced, chosen by PostgreSQL for searches of posts that have not ended.
@Suite struct LiveSearchIndexTests {
    /// 2026-12-05 12:00 UTC: a new index's cutoff is 2026-11-28 00:00 UTC.
    private static let now = Date(timeIntervalSince1970: 1_796_472_000)

    @Test func buildsOnceAndRollsForwardWhenTwoWeeksOld() async throws {
        let database = try await TestDatabase.migrated()
        let index = LiveSearchIndex(url: database.url)
        #expect(try await index.roll(now: Self.now) == .built(name: "posts_search_live_20261128", dropped: []))
        #expect(try await Self.indexes(database) == ["posts_search_live_20261128 valid WHERE (group_buying_end >= '2026-11-28 00:00:00+00'::timestamp with time zone)"])
        // Six days on, the cutoff is 13 days old: kept.
        #expect(try await index.roll(now: Self.now.addingTimeInterval(6 * 86_400)) == .current(name: "posts_search_live_20261128", dropped: []))
        // Eight days on, 15 days old: a new one from 7 days before, the old one dropped.
        #expect(try await index.roll(now: Self.now.addingTimeInterval(8 * 86_400))
                == .built(name: "posts_search_live_20261206", dropped: ["posts_search_live_20261128"]))
        #expect(try await Self.indexes(database) == ["posts_search_live_20261206 valid WHERE (group_buying_end >= '2026-12-06 00:00:00+00'::timestamp with time zone)"])
        await database.drop()
    }

    /// A build cut short (a stop, a crash) leaves its index invalid: PostgreSQL keeps
    /// updating it but never reads it. The next pass drops and builds it again.
    @Test func anInvalidIndexIsBuiltAgain() async throws {
        let database = try await TestDatabase.migrated()
        let index = LiveSearchIndex(url: database.url)
        _ = try await index.roll(now: Self.now)
        try await database.pool.withConnection { connection in
            _ = try connection.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'posts_search_live_20261128'::regclass")
        }
        #expect(try await Self.indexes(database) == ["posts_search_live_20261128 invalid WHERE (group_buying_end >= '2026-11-28 00:00:00+00'::timestamp with time zone)"])
        #expect(try await index.roll(now: Self.now) == .built(name: "posts_search_live_20261128", dropped: []))
        #expect(try await Self.indexes(database) == ["posts_search_live_20261128 valid WHERE (group_buying_end >= '2026-11-28 00:00:00+00'::timestamp with time zone)"])
        await database.drop()
    }

    /// A role that only reads and writes rows (docker-compose.yml's server role) may not
    /// build or drop the index: the pass says so instead of failing every hour.
    @Test func aRoleThatDoesNotOwnPostsIsNotPermitted() async throws {
        let database = try await TestDatabase.migrated()
        let role = "live_rows_" + UUID().uuidString.prefix(8).lowercased()
        try await database.pool.withConnection { connection in
            try connection.execute(script: """
                CREATE ROLE \(unescaped: role) LOGIN;
                GRANT USAGE ON SCHEMA public TO \(unescaped: role);
                GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(unescaped: role)
                """)
        }
        let url = try #require(database.url.range(of: "://").map { range in
            database.url[..<range.upperBound] + role + "@" + database.url[range.upperBound...].drop { $0 != "@" }.dropFirst()
        })
        #expect(try await LiveSearchIndex(url: String(url)).roll(now: Self.now) == .notPermitted)
        #expect(try await Self.indexes(database).isEmpty)
        // The owner's pass builds it.
        #expect(try await LiveSearchIndex.roll(now: Self.now, pool: database.pool) == .built(name: "posts_search_live_20261128", dropped: []))
        await database.drop()
        let admin = try PostgresConnection(url: try TestDatabase.url(database: "postgres"))
        defer { admin.close() }
        try admin.execute(script: "DROP ROLE IF EXISTS \(unescaped: role)")
    }

    /// `search=데님&status=upcoming` (and ongoing): the matches are read through the live
    /// index, which holds a fifth of the posts here, and are those a scan finds.
    @Test func searchesOfPostsNotEndedReadTheLiveIndex() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        try await pool.transaction { connection in
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('live.index') RETURNING id").first!.decode(0)
            // Four in five ended months ago; the others are upcoming or ongoing. 데님 in every tenth.
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                SELECT \(influencer), CASE WHEN n % 10 = 0 THEN '데님 자켓 ' ELSE '니트 ' END || n, 'fashion',
                       s, s + interval '5 days', s - interval '1 day'
                FROM generate_series(1, 20000) n,
                     LATERAL (SELECT CASE WHEN n % 5 = 0 THEN now() + (n % 3 - 1) * interval '2 days'
                                          ELSE now() - interval '120 days' - n * interval '1 minute' END AS s) w
                """)
            try connection.execute("ANALYZE posts")
        }
        _ = try await LiveSearchIndex(url: database.url).roll(now: Date())
        for status in [PostStatus.upcoming, .ongoing] {
            var query = FeedQuery()
            query.search = "데님"
            query.status = status
            let sql = PostgresFeedRepository.conditions(query, now: Date(), windows: nil)
            let (plan, found): ([String], [Int]) = try await pool.withConnection { connection in
                try PostgresFeedRepository.throughIndexes(connection) { connection in
                    let plan: [String] = try connection.queryPlannedForValues("EXPLAIN SELECT p.id FROM posts p \(sql.matchedConditions.whereClause)").map { try $0.decode(0) }
                    let found: [Int] = try connection.queryPlannedForValues("SELECT p.id FROM posts p \(sql.matchedConditions.whereClause) ORDER BY p.id").map { try $0.decode(0) }
                    return (plan, found)
                }
            }
            #expect(plan.contains { $0.contains("Bitmap Index Scan on posts_search_live_") }, "\(status): \(plan.joined(separator: "\n"))")
            let scanned: [Int] = try await pool.withConnection { connection in
                try connection.query("SELECT p.id FROM posts p \(sql.matching.whereClause) ORDER BY p.id").map { try $0.decode(0) }
            }
            #expect(found == scanned)
            #expect(!found.isEmpty)
        }
        await pool.close()
        await database.drop()
    }

    /// What stopping the server relies on during a build: a statement cancelled from
    /// another thread ends at once.
    @Test func aCancelledStatementEndsAtOnce() async throws {
        let database = try await TestDatabase.empty()
        let url = database.url
        let running = Running()
        let started = ContinuousClock.now
        let canceller = Task {
            while running.canceller.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: .milliseconds(300))
            running.canceller.withLock { $0?.cancelStatement() }
        }
        let outcome: Result<Void, any Error> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Result {
                    let connection = try PostgresConnection(url: url)
                    defer { connection.close() }
                    let made = try PostgresCanceller(connection)
                    running.canceller.withLock { $0 = made }
                    _ = try connection.query("SELECT pg_sleep(30)")
                })
            }.start()
        }
        try await canceller.value
        #expect(throws: PostgresError.self) { try outcome.get() }
        #expect(ContinuousClock.now - started < .seconds(10))
        await database.drop()
    }

    private final class Running: Sendable {
        let canceller = Mutex<PostgresCanceller?>(nil)
    }

    private static func indexes(_ database: TestDatabase) async throws -> [String] {
        try await database.pool.withConnection { connection in
            try connection.query("""
                SELECT c.relname || CASE WHEN i.indisvalid THEN ' valid' ELSE ' invalid' END || ' WHERE ' || pg_get_expr(i.indpred, i.indrelid)
                FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                WHERE i.indrelid = 'posts'::regclass AND c.relname LIKE 'posts\\_search\\_live\\_%' ORDER BY 1
                """).map { try $0.decode(0) }
        }
    }
}
