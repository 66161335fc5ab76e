import Foundation
import Persistence
import DatabaseTestSupport
import Testing

@Suite struct AnonymousUserPrunerTests {
    @Test func onlyLongIdleAnonymousUsersAreDeletedInBatchesWithExactLikeCounts() async throws {
        let database = try await TestDatabase.migrated()
        let now = Date()
        let old = now.addingTimeInterval(-40 * 86_400)
        let stale = (0..<5).map { _ in UUID() }
        let activeAnonymous = UUID(), oldPermanent = UUID(), newAnonymous = UUID()
        let post: Int = try await database.pool.transaction { connection in
            for user in stale {
                try connection.execute("INSERT INTO users (id, is_anonymous, created_at) VALUES (\(user), true, \(old))")
                try connection.execute("INSERT INTO sessions (id, user_id, created_at, refreshed_at) VALUES (\(UUID()), \(user), \(old), \(old))")
            }
            try connection.execute("INSERT INTO users (id, is_anonymous, created_at) VALUES (\(activeAnonymous), true, \(old))")
            try connection.execute("INSERT INTO sessions (id, user_id, created_at, refreshed_at) VALUES (\(UUID()), \(activeAnonymous), \(old), \(now))")
            try connection.execute("INSERT INTO users (id, is_anonymous, created_at) VALUES (\(oldPermanent), false, \(old))")
            try connection.execute("INSERT INTO users (id, is_anonymous, created_at) VALUES (\(newAnonymous), true, \(now))")
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('p') RETURNING id").first!.decode(0)
            let post: Int = try connection.query("INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end) VALUES (\(influencer), 'x', 'pet', now(), now()) RETURNING id").first!.decode(0)
            for user in stale + [activeAnonymous] { try connection.execute("INSERT INTO likes (user_id, post_id) VALUES (\(user), \(post))") }
            return post
        }
        let pruner = PostgresAnonymousUserPruner(pool: database.pool)
        let cutoff = now.addingTimeInterval(-30 * 86_400)

        #expect(try await pruner.count(inactiveSince: cutoff) == 5)
        let result = try await pruner.prune(inactiveSince: cutoff, batchSize: 2)

        #expect(result.deleted == 5)
        #expect(result.batches == 3)
        let (remaining, likes): ([UUID], Int) = try await database.pool.withConnection { connection in
            (try connection.query("SELECT id FROM users ORDER BY created_at").map { try $0.decode(0) },
             try connection.query("SELECT likes_count FROM posts WHERE id = \(post)").first!.decode(0))
        }
        #expect(Set(remaining) == [activeAnonymous, oldPermanent, newAnonymous])
        #expect(likes == 1)
        #expect(try await pruner.count(inactiveSince: cutoff) == 0)
        await database.drop()
    }
}
