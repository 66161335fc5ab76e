import DatabaseTestSupport
import Domain
import Foundation
@testable import Persistence
import PostgresDriver
import Testing

/// A search within a category is one scan of the gram index (migration 0041): the index
/// holds each post's category beside its grams, so posts of other categories are never read.
@Suite struct SearchCategoryIndexTests {
    /// The feed's own conditions for `search=데님&category=pet`, read as a search reads its
    /// matches (`throughIndexes`): the category is an index condition, not a filter on rows
    /// read. Before 0041 one of the two was read through its own index and the other
    /// checked on every row read: here all 2,000 pet posts ("Filter: (search_grams @> …)"
    /// under a scan of posts_category_end); on 10 M posts, all ~150 k holding 데님.
    @Test func theCategoryIsAnIndexCondition() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        try await Self.insertPosts(pool)
        var query = FeedQuery()
        query.search = "데님"
        query.category = CategoryID(rawValue: "pet")
        let sql = PostgresFeedRepository.conditions(query, now: Date(), windows: nil)
        let plan: [String] = try await pool.withConnection { connection in
            try PostgresFeedRepository.throughIndexes(connection) {
                try $0.queryPlannedForValues("EXPLAIN SELECT p.id FROM posts p \(sql.matching.whereClause)").map { try $0.decode(0) }
            }
        }
        let text = plan.joined(separator: "\n")
        #expect(plan.contains { $0.contains("Index Cond") && $0.contains("search_grams @>") && $0.contains("category_id = 'pet'") }, "\(text)")
        #expect(!plan.contains { $0.contains("Filter") && $0.contains("category_id") }, "\(text)")

        // And it answers what a scan of every post answers.
        let indexed: [Int] = try await pool.withConnection { connection in
            try PostgresFeedRepository.throughIndexes(connection) {
                try $0.queryPlannedForValues("SELECT p.id FROM posts p \(sql.matching.whereClause) ORDER BY p.id").map { try $0.decode(0) }
            }
        }
        let scanned: [Int] = try await pool.withConnection { connection in
            try connection.query("""
                SELECT id FROM posts WHERE category_id = 'pet' AND strpos(lower(product_name), '데님') > 0 ORDER BY id
                """).map { try $0.decode(0) }
        }
        #expect(indexed == scanned)
        #expect(scanned.count == 40)
        await pool.close()
        await database.drop()
    }

    /// 20,000 posts over ten categories (2,000 in pet), 데님 in every fiftieth (40 of them in pet).
    private static func insertPosts(_ pool: PostgresPool) async throws {
        try await pool.transaction { connection in
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('category.index') RETURNING id").first!.decode(0)
            try connection.execute("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                SELECT \(influencer), CASE WHEN n % 50 = 0 THEN '데님 자켓 ' ELSE '니트 ' END || n,
                       (ARRAY['pet', 'food', 'beauty', 'kids', 'fashion', 'living', 'travel', 'fitness', 'camping', 'education'])[1 + n / 50 % 10],
                       now(), now() + interval '3 days'
                FROM generate_series(1, 20000) n
                """)
            try connection.execute("ANALYZE posts")
        }
    }
}
