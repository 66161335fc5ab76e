import Domain
import Foundation
import PostgresDriver

/// ``FollowRepository`` over `follows` (migration 0018). Follower counts are moved by the
/// `follows` triggers in the same transaction as the rows. The followed list and the
/// schedule read from `reads` (a replica when there is one): the schedule is the costliest
/// read a user makes (435 statements/s under pgbench on 1 M posts, the feed's first page
/// 5,886), and a follow's cookie makes its writer read it back (its ``RequestScope``).
public struct PostgresFollowRepository: FollowRepository {
    private let pool: PostgresPool
    private var reads: ScopedReads

    public init(pool: PostgresPool, reads: (any ReadPoolSource)? = nil) {
        self.pool = pool
        self.reads = ScopedReads(reads ?? pool)
    }

    public func scoped(_ scope: RequestScope) -> PostgresFollowRepository {
        var copy = self
        copy.reads = reads.scoped(scope)
        return copy
    }

    /// The user's row is locked first, so one account's concurrent follows are counted
    /// one at a time and never pass `limit` together (three at once with room for two:
    /// all three were written when the count shared the locking statement).
    public func follow(_ influencer: InfluencerID, by user: UserID, limit: Int) async throws -> Int {
        do {
            return try await pool.transaction { connection in
                guard try connection.query("SELECT 1 FROM users WHERE id = \(user.rawValue) FOR UPDATE").first != nil else {
                    throw DomainError.notFound("user")
                }
                // A statement of its own: its snapshot is taken after the lock is held (the
                // subqueries of a locking statement see the rows from before its wait).
                let row = try connection.query("""
                    SELECT EXISTS (SELECT 1 FROM follows WHERE user_id = \(user.rawValue) AND influencer_id = \(influencer.rawValue)),
                           (SELECT count(*)::int FROM follows WHERE user_id = \(user.rawValue))
                    """).single()
                if try !row.decode(0, as: Bool.self) {
                    guard try row.decode(1, as: Int.self) < limit else {
                        throw DomainError.limitReached("follow", message: "An account follows at most \(limit) influencers; unfollow one first.")
                    }
                    try connection.execute("INSERT INTO follows (user_id, influencer_id) VALUES (\(user.rawValue), \(influencer.rawValue))")
                }
                return try Self.followerCount(influencer, connection)
            }
        } catch let error as PostgresError where error.code == .foreignKeyViolation {
            throw DomainError.notFound("influencer")
        }
    }

    public func unfollow(_ influencer: InfluencerID, by user: UserID) async throws -> Int {
        try await pool.transaction { connection in
            try connection.execute("DELETE FROM follows WHERE user_id = \(user.rawValue) AND influencer_id = \(influencer.rawValue)")
            return try Self.followerCount(influencer, connection)
        }
    }

    private static func followerCount(_ influencer: InfluencerID, _ connection: PostgresConnection) throws -> Int {
        guard let row = try connection.query("SELECT app_followers_count FROM influencers WHERE id = \(influencer.rawValue)").first else {
            throw DomainError.notFound("influencer")
        }
        return try row.decode(0)
    }

    public func followed(by user: UserID, offset: Int, limit: Int) async throws -> Page<InfluencerProfile> {
        try await reads.readPool().withConnection { connection in
            // An influencer an operator hid is left out (the partial index of migration 0038).
            let followed: SQL = "follows WHERE user_id = \(user.rawValue) AND influencer_id NOT IN (SELECT id FROM influencers WHERE hidden_at IS NOT NULL)"
            let total: Int = try connection.query("SELECT count(*)::int FROM \(followed)").single().decode(0)
            let items = try connection.query("""
                SELECT \(PostgresInfluencerRepository.columns(viewer: user)) FROM (
                    SELECT influencer_id, created_at FROM \(followed)
                    ORDER BY created_at DESC, influencer_id DESC OFFSET \(offset) LIMIT \(limit)
                ) f JOIN influencers i ON i.id = f.influencer_id
                ORDER BY f.created_at DESC, f.influencer_id DESC
                """).map { try PostgresInfluencerRepository.decode($0, from: 0) }
            return Page(items: items, total: total)
        }
    }

    /// The posts of `user`'s schedule from `from` to `to`.
    private static func scheduled(_ user: UserID, from: Date, to: Date) -> SQL {
        """
        FROM follows f JOIN posts p ON p.influencer_id = f.influencer_id
        WHERE f.user_id = \(user.rawValue) AND p.group_buying_end >= \(from) AND p.group_buying_start < \(to)
          AND p.group_buying_end < \(to)::timestamptz + (SELECT longest FROM post_window_bounds)
        """
    }

    /// One statement: for each followed influencer, a range of `posts_influencer_end` —
    /// windows ending from `from` on, and before `to` plus the longest window any post has
    /// (migration 0015), since a window that starts before `to` ends before that — with the
    /// start tested in the index. The matches are counted and one page of them joined.
    public func schedule(of user: UserID, from: Date, to: Date, offset: Int, limit: Int) async throws -> Page<Post> {
        try await reads.readPool().withConnection { connection in
            let rows = try connection.query("""
                WITH matches AS (SELECT p.id, p.group_buying_end \(Self.scheduled(user, from: from, to: to)))
                SELECT (SELECT count(*)::int FROM matches), \(PostRows.columns(viewer: user)) FROM (
                    SELECT id, group_buying_end FROM matches ORDER BY group_buying_end, id OFFSET \(offset) LIMIT \(limit)
                ) page JOIN posts p ON p.id = page.id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
                ORDER BY p.group_buying_end, p.id
                """)
            let items = try rows.map { try PostRows.decode($0, from: 1) }
            if let first = rows.first { return Page(items: items, total: try first.decode(0)) }
            // Past the last page: count on its own.
            let total: Int = try connection.query("SELECT count(*)::int \(Self.scheduled(user, from: from, to: to))").single().decode(0)
            return Page(items: [], total: total)
        }
    }
}
