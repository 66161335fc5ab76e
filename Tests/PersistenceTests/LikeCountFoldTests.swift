import Domain
import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// Likes of a post commit without its row and are counted by folds (migration 0034).
@Suite struct LikeCountFoldTests {
    /// Two repositories are two instances: each batches its own callers' likes. Their
    /// batches share every user and run side by side (no post row between them), yet none
    /// deadlocks (each takes the users in the same order), every answer includes its
    /// caller's change, and the count is exact with nothing left to fold.
    @Test func twoInstancesLikingAndUnlikingTheSameUsersAtOnceEndExact() async throws {
        let database = try await TestDatabase.migrated()
        let (post, users) = try await Self.postAndUsers(database.pool, users: 60)
        let instances = [PostgresPostRepository(pool: database.pool), PostgresPostRepository(pool: database.pool)]
        // Every user liked by both instances, then the first 20 unliked by both: 40 remain.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, user) in users.enumerated() {
                for instance in instances { group.addTask { try await instance.like(post: post, by: user) } }
                if index % 2 == 0 { group.addTask { try await instances[index % 4 == 0 ? 0 : 1].like(post: post, by: user) } }
            }
            for try await count in group { #expect((1...60).contains(count)) }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for user in users.prefix(20) {
                for instance in instances { group.addTask { try await instance.unlike(post: post, by: user) } }
            }
            for try await count in group { #expect((40...59).contains(count)) }
        }
        let (count, rows, pending) = try await Self.counts(post, database.pool)
        #expect(rows == 40)
        #expect(count == 40)
        #expect(pending == 0)
        await database.drop()
    }

    /// A batch whose server died between its commit and its fold leaves a delta behind:
    /// the count lags (it never goes beyond the likes) until the sweep folds it, once.
    @Test func deltasLeftByACrashAreFoldedOnceBySweep() async throws {
        let database = try await TestDatabase.migrated()
        let (post, users) = try await Self.postAndUsers(database.pool, users: 3)
        _ = try await PostgresPostRepository(pool: database.pool).like(post: post, by: users[0])
        try await Self.unfoldedBatch(post, [users[1], users[2]], liked: true, database.pool)
        #expect(try await Self.counts(post, database.pool) == (1, 3, 1))
        #expect(try await PostgresPostRepository.foldPendingLikes(database.pool) == 1)
        #expect(try await Self.counts(post, database.pool) == (3, 3, 0))
        #expect(try await PostgresPostRepository.foldPendingLikes(database.pool) == 0)
        #expect(try await Self.counts(post, database.pool) == (3, 3, 0))
        await database.drop()
    }

    /// A lone like that finds its like already made by another instance's batch (the same
    /// user tapping twice, each tap on another instance), committed but not yet folded,
    /// changes nothing itself; its answer still includes that like (and a lone unlike's
    /// excludes it): it folds the pending deltas it holds the post's row for.
    @Test func aLoneChangeMadeByAnUnfoldedBatchIsInItsAnswer() async throws {
        let database = try await TestDatabase.migrated()
        let (post, users) = try await Self.postAndUsers(database.pool, users: 2)
        let repository = PostgresPostRepository(pool: database.pool)
        try await Self.unfoldedBatch(post, [users[0], users[1]], liked: true, database.pool)
        #expect(try await repository.like(post: post, by: users[0]) == 2, "the answer left out the caller's like")
        #expect(try await Self.counts(post, database.pool) == (2, 2, 0))
        try await Self.unfoldedBatch(post, [users[0], users[1]], liked: false, database.pool)
        #expect(try await repository.unlike(post: post, by: users[1]) == 0, "the answer still had the caller's like")
        #expect(try await Self.counts(post, database.pool) == (0, 0, 0))
        await database.drop()
    }

    /// A lone like of a post whose row is taken (by another instance's like of a hot post
    /// that waits for its standby) does not wait for it: its like and delta commit at once;
    /// only its fold waits, and its answer then includes it.
    @Test func aLikeDoesNotWaitForThePostsRow() async throws {
        let database = try await TestDatabase.migrated()
        let (post, users) = try await Self.postAndUsers(database.pool, users: 1)
        let holder = Task {
            try await database.pool.withConnection { connection in
                try connection.execute("BEGIN")
                try connection.execute("SELECT 1 FROM posts WHERE id = \(post.rawValue) FOR NO KEY UPDATE")
                Thread.sleep(forTimeInterval: 1.5)  // a pool thread, not the cooperative pool
                try connection.execute("COMMIT")
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let liking = Task { try await PostgresPostRepository(pool: database.pool).like(post: post, by: users[0]) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.counts(post, database.pool) == (0, 1, 1), "the like waited for the post's row")
        #expect(try await liking.value == 1)
        try await holder.value
        #expect(try await Self.counts(post, database.pool) == (1, 1, 0))
        await database.drop()
    }

    private static func postAndUsers(_ pool: PostgresPool, users: Int) async throws -> (PostID, [UserID]) {
        let ids = (0..<users).map { _ in UUID() }
        let post = try await pool.transaction { connection in
            for id in ids { try connection.query("INSERT INTO users (id, is_anonymous) VALUES (\(id), false)") }
            let influencer = try connection.query("INSERT INTO influencers (username) VALUES ('viral') RETURNING id").first!.decode(0, as: Int.self)
            return try connection.query("""
                INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                VALUES (\(influencer), '핫딜', 'beauty', now(), now() + interval '3 days') RETURNING id
                """).first!.decode(0, as: Int.self)
        }
        return (PostID(rawValue: post), ids.map(UserID.init))
    }

    /// What the server sends for a batch of two or more, without the fold after it (as if
    /// its server died between the two, or had not reached its fold yet).
    private static func unfoldedBatch(_ post: PostID, _ users: [UserID], liked: Bool, _ pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            try connection.execute("SELECT set_likes(\(post.rawValue), \("{" + users.map(\.rawValue.uuidString).joined(separator: ",") + "}")::uuid[], \("{" + users.map { _ in liked ? "t" : "f" }.joined(separator: ",") + "}")::boolean[], false)")
        }
    }

    /// The post's count, its like rows and its unfolded deltas.
    private static func counts(_ post: PostID, _ pool: PostgresPool) async throws -> (count: Int, rows: Int, pending: Int) {
        try await pool.withConnection { connection in
            let row = try connection.query("""
                SELECT likes_count, (SELECT count(*)::int FROM likes WHERE post_id = \(post.rawValue)),
                       (SELECT count(*)::int FROM post_like_deltas WHERE post_id = \(post.rawValue))
                FROM posts WHERE id = \(post.rawValue)
                """).first!
            return (try row.decode(0), try row.decode(1), try row.decode(2))
        }
    }
}
