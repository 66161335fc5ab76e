import Domain
import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// The popular order lives in `post_popularity` (migration 0039), so a like's update of
/// `posts.likes_count` touches no index of posts.
@Suite struct PopularityOrderTests {
    /// A like's count update is HOT: no index of posts holds `likes_count`. With
    /// `posts_likes` back, this counted 0 HOT updates of 3.
    @Test func aLikesCountUpdateIsHeapOnly() async throws {
        let database = try await TestDatabase.migrated()
        let (posts, users) = try await Self.postsAndUsers(database.pool, posts: 1, users: 3)
        let hot: Int = try await database.pool.transaction { connection in
            for user in users {
                try connection.execute("INSERT INTO likes (user_id, post_id) VALUES (\(user.rawValue), \(posts[0].rawValue))")
            }
            return try connection.query("SELECT n_tup_hot_upd::int FROM pg_stat_xact_user_tables WHERE relname = 'posts'").single().decode(0)
        }
        #expect(hot == 3)
        await database.drop()
    }

    /// Every write that moves a post's count, window, category or influencer moves its
    /// `post_popularity` row in the same transaction: likes from two instances at once, an
    /// edit, hiding and showing, a delete. After each, the two tables agree row for row.
    @Test func postPopularityMirrorsPostsThroughEveryWrite() async throws {
        let database = try await TestDatabase.migrated()
        let pool = database.pool
        let (posts, users) = try await Self.postsAndUsers(pool, posts: 6, users: 20)
        #expect(try await Self.disagreements(pool) == 0)
        let instances = [PostgresPostRepository(pool: pool), PostgresPostRepository(pool: pool)]
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, user) in users.enumerated() {
                for (offset, post) in posts.enumerated() where (index + offset) % 3 != 0 {
                    group.addTask { try await instances[(index + offset) % 2].like(post: post, by: user) }
                }
            }
            for try await _ in group {}
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for user in users.prefix(7) {
                for post in posts.prefix(3) { group.addTask { try await instances[0].unlike(post: post, by: user) } }
            }
            for try await _ in group {}
        }
        _ = try await PostgresPostRepository.foldPendingLikes(pool)
        #expect(try await Self.disagreements(pool) == 0)
        let counted: [Int] = try await pool.withConnection { connection in
            try connection.query("SELECT likes_count FROM post_popularity ORDER BY id").map { try $0.decode(0) }
        }
        let liked: [Int] = try await pool.withConnection { connection in
            try connection.query("SELECT count(l.post_id)::int FROM posts p LEFT JOIN likes l ON l.post_id = p.id GROUP BY p.id ORDER BY p.id")
                .map { try $0.decode(0) }
        }
        #expect(counted == liked)
        #expect(counted.reduce(0, +) > 0)

        try await pool.withConnection { connection in
            try connection.execute("""
                UPDATE posts SET category_id = 'food', group_buying_start = now() - interval '1 day',
                                 group_buying_end = now() + interval '9 days', posted_at = now() - interval '2 days'
                WHERE id = \(posts[1].rawValue)
                """)
            try connection.execute("SELECT post_hide(\(posts[2].rawValue), false)")
            try connection.execute("DELETE FROM posts WHERE id = \(posts[3].rawValue)")
        }
        #expect(try await Self.disagreements(pool) == 0)
        try await pool.withConnection { connection in
            try connection.execute("SELECT post_show(\(posts[2].rawValue))")
        }
        #expect(try await Self.disagreements(pool) == 0)
        let rows: Int = try await pool.withConnection { try $0.query("SELECT count(*)::int FROM post_popularity").single().decode(0) }
        #expect(rows == 5)
        await database.drop()
    }

    /// Rows of posts and post_popularity that differ (or exist in one only).
    private static func disagreements(_ pool: PostgresPool) async throws -> Int {
        try await pool.withConnection { connection in
            try connection.query("""
                SELECT count(*)::int FROM posts p FULL JOIN post_popularity q ON q.id = p.id
                WHERE (p.likes_count, p.posted_at, p.group_buying_start, p.group_buying_end, p.category_id, p.influencer_id)
                      IS DISTINCT FROM (q.likes_count, q.posted_at, q.group_buying_start, q.group_buying_end, q.category_id, q.influencer_id)
                """).single().decode(0)
        }
    }

    private static func postsAndUsers(_ pool: PostgresPool, posts: Int, users: Int) async throws -> ([PostID], [UserID]) {
        let ids = (0..<users).map { _ in UUID() }
        let created: [Int] = try await pool.transaction { connection in
            for id in ids { try connection.query("INSERT INTO users (id, is_anonymous) VALUES (\(id), false)") }
            let influencer = try connection.query("INSERT INTO influencers (username) VALUES ('popular') RETURNING id").first!.decode(0, as: Int.self)
            return try connection.query("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                SELECT \(influencer), '딜 ' || n, 'beauty', now(), now() + interval '3 days' FROM generate_series(1, \(posts)) n
                RETURNING id
                """).map { try $0.decode(0) }
        }
        return (created.sorted().map(PostID.init(rawValue:)), ids.map(UserID.init))
    }
}
