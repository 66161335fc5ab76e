import Domain
import Foundation
@testable import Persistence
@testable import PostgresDriver
import DatabaseTestSupport
import Testing

/// The benchmark's "own SQL" ceilings (`bench/sql/*.own.sql`) are copies of what the
/// repositories send. This runs each repository path the benchmark measures on a
/// one-connection pool and checks every copied statement is among the statements it
/// prepared, parameters and whitespace aside, so a change to one without the other fails.
@Suite struct BenchStatementsTests {
    private static let benchSQL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("bench/sql")

    /// `$3` and `:viewer` become `?`; comments and pgbench meta-commands go; whitespace collapses.
    private static func normalized(_ sql: String) -> String {
        let lines = sql.split(separator: "\n").filter { !$0.hasPrefix("--") && !$0.hasPrefix("\\") }
        var text = lines.joined(separator: " ")
        text = text.replacingOccurrences(of: #"\$\d+"#, with: "?", options: .regularExpression)
        text = text.replacingOccurrences(of: #"(?<!:):[a-z_]+"#, with: "?", options: .regularExpression)
        text = text.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: #"\s*;\s*$"#, with: "", options: .regularExpression)
        return text.trimmingCharacters(in: .whitespaces)
    }

    @Test func everyOwnSQLFileIsAStatementTheServerPrepares() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let now = Date()
        let viewer = UserID(rawValue: UUID())
        let post: Int = try await pool.transaction { connection in
            try connection.execute("INSERT INTO users (id, is_anonymous, role) VALUES (\(viewer.rawValue), false, 'user')")
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('bench.probe') RETURNING id").first!.decode(0)
            return try connection.query("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                VALUES (\(influencer), 'probe', 'beauty', \(now.addingTimeInterval(-3600)), \(now.addingTimeInterval(86_400)), \(now.addingTimeInterval(-3600))) RETURNING id
                """).first!.decode(0)
        }
        let feed = PostgresFeedRepository(pool: pool)
        let posts = PostgresPostRepository(pool: pool)
        let day = KoreaDay(containing: now)
        try await feed.prepare(day: day)
        var query = FeedQuery()
        _ = try await feed.page(query, day: day, now: now, viewer: viewer)                 // feed.own.sql
        query.page = 50
        _ = try await feed.page(query, day: day, now: now, viewer: viewer)                 // feed_deep.own.sql
        query = FeedQuery()
        query.category = CategoryID(rawValue: "beauty")
        _ = try await feed.page(query, day: day, now: now, viewer: viewer)                 // feed_category.own.sql
        query = FeedQuery()
        query.sort = .latest
        query.cursor = FeedCursor(sort: .latest, key: now.timeIntervalSince1970, id: Int.max)
        _ = try await feed.page(query, day: day, now: now, viewer: viewer)                 // keyset.own.sql
        _ = try await posts.like(post: PostID(rawValue: post), by: viewer)                 // like.own.sql (its user lookup aside)
        #expect(try await posts.top10(category: nil, now: now, viewer: viewer).count == 1) // top10.own.sql
        _ = try await posts.post(id: PostID(rawValue: post), viewer: viewer)                // detail.own.sql
        _ = try await PostgresUserRepository(pool: pool).user(id: viewer)                  // me.own.sql
        _ = try await PostgresFollowRepository(pool: pool).schedule(of: viewer, from: now, to: now.addingTimeInterval(7 * 86_400),
                                                                    offset: 0, limit: 20)  // schedule.own.sql
        _ = try await PostgresRateLimitCounters(pool: pool).take("pw-addr:192.0.2.1", limit: 10, window: 900, now: now) // rate_limit.own.sql
        let prepared = Set(try await pool.withConnection { $0.preparedStatements }.map(Self.normalized))

        let files = try FileManager.default.contentsOfDirectory(atPath: Self.benchSQL.path).filter { $0.hasSuffix(".own.sql") }.sorted()
        #expect(files.count == 10)
        for file in files where file != "like.own.sql" {
            let text = try String(contentsOf: Self.benchSQL.appendingPathComponent(file), encoding: .utf8)
            let sent = prepared.contains(Self.normalized(text))
            #expect(sent, "\(file) is not what the server sends")
        }
        // like.own.sql picks its user by number (pgbench has no per-client UUIDs): the call is the server's.
        let like = try String(contentsOf: Self.benchSQL.appendingPathComponent("like.own.sql"), encoding: .utf8)
        let likeSent = prepared.contains("SELECT post, counted, value FROM set_likes_group( ?::bigint[], ?::uuid[], ?::boolean[])")
        #expect(likeSent && Self.normalized(like).hasPrefix("SELECT post, counted, value FROM set_likes_group(ARRAY[?::bigint], ARRAY[("),
                "\(prepared.filter { $0.contains("like") })")
        await pool.close()
        await database.drop()
    }
}
