import Fakes
import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// Invariants the schema itself enforces, whatever code writes the rows.
@Suite struct SchemaTests {
    @Test func theThirteenContractCategoriesAreSeededInChipOrder() async throws {
        let database = try await TestDatabase.migrated()
        let rows = try await database.pool.withConnection { connection in
            try connection.query("SELECT id, name FROM categories ORDER BY sort_order").map {
                "\(try $0.decode(0, as: String.self))=\(try $0.decode(1, as: String.self))"
            }
        }
        #expect(rows == contractCategories.map { "\($0.id)=\($0.name)" })
        await database.drop()
    }

    @Test func likesCountFollowsLikeRowsAndPostsAreDeduplicated() async throws {
        let database = try await TestDatabase.migrated()
        let users = [UUID(), UUID()]
        let (count, dedup) = try await database.pool.transaction { connection in
            for user in users {
                try connection.query("INSERT INTO users (id, is_anonymous) VALUES (\(user), false)")
            }
            let influencer = try connection.query("INSERT INTO influencers (username) VALUES ('seller') RETURNING id").first!.decode(0, as: Int.self)
            let insertPost: SQL = "INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end) VALUES (\(influencer), '크림', 'beauty', '2026-11-01', '2026-11-30') ON CONFLICT ON CONSTRAINT posts_dedup_key DO NOTHING RETURNING id"
            let post = try connection.query(insertPost).first!.decode(0, as: Int.self)
            let duplicate = try connection.query(insertPost).count
            for user in users {
                try connection.query("INSERT INTO likes (user_id, post_id) VALUES (\(user), \(post))")
            }
            try connection.query("DELETE FROM users WHERE id = \(users[0])")
            return (try connection.query("SELECT likes_count FROM posts WHERE id = \(post)").first!.decode(0, as: Int.self), duplicate)
        }
        #expect(count == 1)
        #expect(dedup == 0)
        await database.drop()
    }

    @Test func aBuyingWindowMustNotEndBeforeItStarts() async throws {
        let database = try await TestDatabase.migrated()
        let error = await #expect(throws: PostgresError.self) {
            try await database.pool.transaction { connection in
                let influencer = try connection.query("INSERT INTO influencers (username) VALUES ('w') RETURNING id").first!.decode(0, as: Int.self)
                try connection.query("INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end) VALUES (\(influencer), 'x', 'food', '2026-12-02', '2026-12-01')")
            }
        }
        #expect(error?.code == .checkViolation)
        #expect(error?.constraint == "posts_window_ordered")
        await database.drop()
    }
}
