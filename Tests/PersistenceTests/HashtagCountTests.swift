import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// Posts per hashtag stay exact when many posts are written by one statement (an import's
/// batch), counted once per statement (migration 0027).
@Suite struct HashtagCountTests {
    private func counts(_ pool: PostgresPool) async throws -> [String: Int] {
        try await pool.withConnection { connection in
            try connection.query("SELECT tag, posts FROM hashtag_counts WHERE posts > 0").reduce(into: [String: Int]()) {
                $0[try $1.decode(0, as: String.self)] = try $1.decode(1, as: Int.self)
            }
        }
    }

    @Test func postsWrittenTogetherAreCountedOncePerTagAndPostAndLeaveTheCountsWhenDeleted() async throws {
        let database = try await TestDatabase.migrated()
        defer { Task { await database.drop() } }
        try await database.pool.transaction { connection in
            try connection.execute(script: """
                INSERT INTO influencers (username) VALUES ('tags.one'), ('tags.two');
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, hashtags)
                SELECT i.id, 'post ' || n, 'food', now(), now() + interval '1 day',
                       CASE WHEN n % 2 = 0 THEN '{공구,크림,공구}'::text[] ELSE '{크림}'::text[] END
                FROM influencers i, generate_series(1, 50) n;
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                SELECT id, 'untagged', 'food', now(), now() + interval '1 day' FROM influencers;
                """)
        }
        // 2 influencers × 50 posts: all tagged 크림, the even half 공구 (named twice, counted once).
        #expect(try await counts(database.pool) == ["크림": 100, "공구": 50])

        try await database.pool.statement { try $0.execute("DELETE FROM posts WHERE product_name IN ('post 1', 'post 2', 'post 3')") }
        #expect(try await counts(database.pool) == ["크림": 94, "공구": 48])
        try await database.pool.statement { try $0.execute("DELETE FROM influencers WHERE username = 'tags.one'") }
        #expect(try await counts(database.pool) == ["크림": 47, "공구": 24])
        try await database.pool.statement { try $0.execute("UPDATE posts SET hashtags = '{새태그}' WHERE product_name = 'post 4'") }
        #expect(try await counts(database.pool) == ["크림": 46, "공구": 23, "새태그": 1])
    }
}
