import DatabaseTestSupport
import Domain
import Foundation
@testable import Persistence
import PostgresDriver
import Testing

/// `SearchSample` reads the sample's own index (migration 0042): its predicate, written in
/// Swift, is the index's, so PostgreSQL can prove the index usable. Were they to drift apart,
/// estimates would stay right but read every match through the full gram index.
@Suite struct SearchSampleIndexTests {
    @Test func theEstimateReadsTheSampleIndexAndScalesItsCount() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        // 20,000 posts, 립밤 in 8,000 of them.
        try await pool.transaction { connection in
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('sample.index') RETURNING id").first!.decode(0)
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                SELECT \(influencer), CASE WHEN n % 5 < 2 THEN '립밤 ' ELSE '핸드크림 ' END || n, 'beauty', now(), now() + interval '3 days'
                FROM generate_series(1, 20000) n
                """)
            try connection.execute("ANALYZE posts")
        }
        // The statement `SearchSample.estimate` runs (`searchCount` under the sample's predicate).
        var inSample = Self.sql("립밤")
        inSample.where(SearchSample.predicate)
        let sampleSQL = inSample
        let plan: [String] = try await pool.withConnection { connection in
            try PostgresFeedRepository.throughIndexes(connection) {
                try $0.queryPlannedForValues("""
                    EXPLAIN SELECT count(*)::int FROM (SELECT FROM posts p \(sampleSQL.matchedConditions.whereClause)) x
                    """).map { try $0.decode(0) }
            }
        }
        #expect(plan.contains { $0.contains("posts_search_sample") }, "\(plan.joined(separator: "\n"))")

        let (estimate, sampled, rare) = try await pool.withConnection { connection in
            (try SearchSample.estimate(Self.sql("립밤"), connection),
             try connection.query("SELECT count(*)::int FROM posts WHERE (hashint8(id) & 15) = 0 AND product_name LIKE '립밤 %'").single().decode(0, as: Int.self),
             try SearchSample.estimate(Self.sql("핸드크림 1999"), connection))
        }
        #expect(sampled >= SearchSample.minimum && estimate == 16 * sampled)
        #expect(abs((estimate ?? 0) - 8_000) <= 800, "\(estimate ?? 0) for 8,000")
        // 11 posts hold 핸드크림 1999: too few in the sample to estimate from.
        #expect(rare == nil)

        // An estimate is kept for a minute per search and filters, whatever the order or page.
        let sample = SearchSample()
        var query = FeedQuery()
        query.search = "립밤"
        let firstQuery = query
        let first = try await pool.withConnection { try sample.estimate(firstQuery, Self.sql("립밤"), $0) }
        try await pool.withConnection { try $0.execute("DELETE FROM posts WHERE product_name LIKE '립밤 %' AND id % 2 = 0") }
        query.sort = .latest
        query.page = 3
        let laterQuery = query
        let (kept, now) = try await pool.withConnection { connection in
            (try sample.estimate(laterQuery, Self.sql("립밤"), connection), try SearchSample.estimate(Self.sql("립밤"), connection))
        }
        #expect(first == estimate && kept == estimate)
        // Read anew: 4,000 are left, too few in the sample to estimate from.
        #expect(now == nil)
        await pool.close()
        await database.drop()
    }

    private static func sql(_ term: String) -> FeedSQL {
        var query = FeedQuery()
        query.search = term
        return PostgresFeedRepository.conditions(query, now: Date(), windows: nil)
    }
}
