import Codecs
import Domain
import Foundation
import PostgresDriver
import Synchronization

/// ``PostRepository`` and ``LikeRepository`` over `posts` and `likes`. A like's count moves
/// in a fold right after its batch commits (migration 0034); every other change of likes
/// moves it by the `likes` triggers in the same transaction as the like rows.
public struct PostgresPostRepository: PostRepository, LikeRepository {
    private(set) var pool: ScopedPool
    /// A post and the Top 10: a replica when one is healthy and has the caller's writes.
    private var reads: ScopedReads
    private let rankings: RankingCache
    private let likes: LikeBatches
    /// The caller's address, for the audit entry of an admin's change to another's post.
    private var client: String?

    /// Creates the repository over a pool. The Top 10 (which posts, in which order, and
    /// the posts) is kept for `top10TTL` seconds per category; each post's like count and
    /// `is_liked` are read fresh on every request, so a liker sees their own like at once
    /// and others see a ranking at most `top10TTL` old.
    public init(pool: PostgresPool, reads: (any ReadPoolSource)? = nil, top10TTL: TimeInterval = 10) {
        self.reads = ScopedReads(reads ?? pool)
        self.pool = ScopedPool(pool)
        self.rankings = RankingCache(ttl: top10TTL)
        self.likes = LikeBatches { [pool] group in
            // A group's likes and their deltas commit (with the standby) holding no post row,
            // then the counts are folded in a transaction that does not wait; a lone like of
            // a free post counts itself in the same statement (migrations 0034, 0040).
            try await pool.statement(maxAttempts: 5) { connection in
                let likes = group.flatMap { batch in batch.likes.map { (batch.post, $0) } }
                let rows = try connection.query("""
                    SELECT post, counted, value FROM set_likes_group(
                        \(PostgresTextArray(likes.map { String($0.0.rawValue) }))::bigint[],
                        \(PostgresTextArray(likes.map(\.1.user.rawValue.lowercasedText)))::uuid[],
                        \(PostgresTextArray(likes.map { $0.1.liked ? "t" : "f" }))::boolean[])
                    """)
                var counts: [PostID: Int?] = [:], folds: [Int] = []
                for row in rows {
                    let post: Int = try row.decode(0)
                    switch try row.decode(1, as: Bool?.self) {
                    case nil: counts[PostID(rawValue: post)] = .some(nil)
                    case true?: counts[PostID(rawValue: post)] = try row.decode(2, as: Int.self)
                    case false?: folds.append(post)
                    }
                }
                guard !folds.isEmpty else { return counts }
                // In id order, as every fold takes its post's row.
                for row in try connection.query("""
                    SELECT f.post, fold_likes(f.post) FROM unnest(\(PostgresTextArray(folds.sorted().map(String.init)))::bigint[]) f (post)
                    """) {
                    counts[PostID(rawValue: try row.decode(0))] = try row.decode(1, as: Int?.self)
                }
                return counts
            }
        }
    }

    /// Reads for the request; likes and writes are the request's own, whoever waits.
    public func scoped(_ scope: RequestScope) -> PostgresPostRepository {
        var copy = self
        copy.reads = reads.scoped(scope)
        copy.pool = pool.scoped(scope)
        copy.client = scope.client
        return copy
    }

    public func post(id: PostID, viewer: UserID?) async throws -> Post? {
        try await reads.readPool().read(PostRows.find(id, viewer: viewer), decode: PostRows.found)
    }

    public func create(_ post: NewPost, submittedBy: UserID, now: Date) async throws -> Post {
        try await Self.mappingPostErrors {
            try await pool.transaction { connection in
                guard let row = try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, price, category_id, display_url, group_buying_url,
                                       group_buying_start, group_buying_end, submitted_by, posted_at, post_url, caption, hashtags, post_type, source)
                    VALUES (\(post.influencerID.rawValue), \(post.productName), \(post.price), \(post.category.rawValue), \(post.displayURL),
                            \(post.groupBuyingURL), \(post.groupBuyingStart), \(post.groupBuyingEnd), \(submittedBy.rawValue), \(now),
                            \(post.details.postURL), \(post.details.caption), string_to_array(\(Self.tagText(post.details.hashtags)), ' '),
                            \(post.details.postType), \(PostSource.app.rawValue))
                    ON CONFLICT ON CONSTRAINT posts_dedup_key DO NOTHING
                    RETURNING id
                    """).first
                else { throw DomainError.conflict("post") }
                return try PostRows.find(PostID(rawValue: try row.decode(0)), viewer: submittedBy, connection)!
            }
        }
    }

    public func update(id: PostID, changes: PostChanges, requester: UserID, isAdmin: Bool) async throws -> Post {
        try await Self.mappingPostErrors {
            try await pool.transaction { [client] connection in
                let (start, end, postedAt, othersPost) = try Self.authorize(id, requester: requester, isAdmin: isAdmin, connection)
                try PostRules.edit(changes, start: start, end: end, postedAt: postedAt)
                if othersPost {
                    try AuditTrail.audited(Self.apiActor(requester, client), action: "post.edit", target: "post \(id)",
                                           row: Self.auditedRow(id), connection) { ((), try Self.apply(changes, to: id, connection) == 1) }
                } else {
                    try Self.apply(changes, to: id, connection)
                }
                return try PostRows.find(id, viewer: requester, connection)!
            }
        }
    }

    /// Writes `changes` to post `id`; the rows changed (0 or 1). The API's edits and the
    /// console's go through here.
    @discardableResult
    static func apply(_ changes: PostChanges, to id: PostID, _ connection: PostgresConnection) throws -> Int {
        try connection.execute("""
            UPDATE posts SET product_name = COALESCE(\(changes.productName), product_name), price = COALESCE(\(changes.price), price),
                category_id = COALESCE(\(changes.category?.rawValue), category_id),
                group_buying_start = COALESCE(\(changes.groupBuyingStart), group_buying_start),
                group_buying_end = COALESCE(\(changes.groupBuyingEnd), group_buying_end),
                display_url = COALESCE(\(changes.displayURL), display_url),
                group_buying_url = COALESCE(\(changes.groupBuyingURL), group_buying_url), post_url = COALESCE(\(changes.postURL), post_url),
                caption = COALESCE(\(changes.caption), caption),
                hashtags = COALESCE(string_to_array(\(changes.hashtags.map(Self.tagText)), ' '), hashtags),
                post_type = COALESCE(\(changes.postType), post_type)
            WHERE id = \(id.rawValue)
            """)
    }

    /// What the audit log keeps of a post: its row without the derived search grams.
    static func auditedRow(_ id: PostID) -> SQL {
        """
        SELECT p.id, p.product_name, p.price, p.category_id, p.influencer_id, p.display_url, p.group_buying_url,
               p.group_buying_start, p.group_buying_end, p.caption, p.hashtags, p.source, p.submitted_by
        FROM posts p WHERE p.id = \(id.rawValue)
        """
    }

    /// An admin changing another member's post through the API.
    private static func apiActor(_ requester: UserID, _ client: String?) -> AdminActor {
        AdminActor(userID: requester, name: "admin " + requester.description, channel: .api, address: client)
    }

    public func delete(id: PostID, requester: UserID, isAdmin: Bool) async throws {
        try await pool.transaction { [client] connection in
            let othersPost = try Self.authorize(id, requester: requester, isAdmin: isAdmin, connection).othersPost
            let before = othersPost ? try AuditTrail.snapshot(Self.auditedRow(id), connection) : nil
            try connection.execute("DELETE FROM posts WHERE id = \(id.rawValue)")
            if othersPost {
                try AuditTrail.record(Self.apiActor(requester, client), action: "post.delete", target: "post \(id)", before: before, after: nil, connection)
            }
        }
    }

    public func likedPosts(by user: UserID, offset: Int, limit: Int) async throws -> Page<Post> {
        try await page(counting: "SELECT count(*) FROM likes WHERE user_id = \(user.rawValue)", selecting: """
            SELECT \(PostRows.columns(viewer: user)) \(PostRows.joins) JOIN likes mine ON mine.post_id = p.id AND mine.user_id = \(user.rawValue)
            ORDER BY mine.created_at DESC, mine.post_id DESC OFFSET \(offset) LIMIT \(limit)
            """)
    }

    /// A page of one of a user's lists: its total (`counting`) and its posts (`selecting`).
    private func page(counting: SQL, selecting: SQL) async throws -> Page<Post> {
        try await pool.withConnection { connection in
            let total: Int = try connection.query(counting).single().decode(0)
            let items = try connection.query(selecting).map(PostRows.decode)
            return Page(items: items, total: total)
        }
    }

    /// The ten most liked posts open in the last week. They are the same for everyone:
    /// the ranking and the posts themselves are computed once per category and kept
    /// `top10TTL` seconds; each request reads only what is its own or must be fresh, the
    /// ten posts' like counts and whether the viewer likes them (ten primary-key lookups,
    /// instead of the ten posts with their influencer and category joined). On 1 M posts,
    /// three interleaved rounds at 32 connections: 4,008-4,119 → 5,536-5,794 rps, server
    /// CPU per request 235-243 → 197-208 µs; a post deleted meanwhile leaves at once. Ranked
    /// from `post_popularity` (migration 0039), whose order index posts no longer has.
    public func top10(category: CategoryID?, now: Date, viewer: UserID?) async throws -> [Post] {
        let key = category?.rawValue ?? ""
        let ranked: [Post]
        if let cached = rankings.posts(for: key, now: now) {
            ranked = cached
        } else {
            ranked = try await reads.readPool().withConnection { connection in
                try connection.query("""
                    SELECT \(PostRows.columns(viewer: nil)) FROM (
                        SELECT p.id FROM post_popularity p
                        WHERE p.group_buying_start <= \(now) AND p.group_buying_end >= \(now.addingTimeInterval(-7 * 86_400)) AND (\(category?.rawValue)::text IS NULL OR p.category_id = \(category?.rawValue))
                        ORDER BY p.likes_count DESC, p.posted_at DESC, p.id DESC LIMIT 10
                    ) ranked JOIN posts p ON p.id = ranked.id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
                    ORDER BY p.likes_count DESC, p.posted_at DESC, p.id DESC
                    """).map(PostRows.decode)
            }
            rankings.store(ranked, for: key, now: now)
        }
        guard !ranked.isEmpty else { return [] }
        let fresh: [Int: (likes: Int, liked: Bool)] = try await reads.readPool().read("""
            SELECT p.id, p.likes_count, EXISTS (SELECT 1 FROM likes l WHERE l.user_id = \(viewer?.rawValue)::uuid AND l.post_id = p.id)
            FROM posts p WHERE p.id = ANY(\(PostgresTextArray(ranked.map { String($0.id.rawValue) }))::bigint[])
            """) { rows in
            var fresh: [Int: (likes: Int, liked: Bool)] = [:]
            for row in rows { fresh[try row.decode(0)] = (try row.decode(1), try row.decode(2)) }
            return fresh
        }
        // A post deleted since the ranking was computed is left out.
        return ranked.compactMap { post in fresh[post.id.rawValue].map { post.seen(likesCount: $0.likes, isLiked: $0.liked) } }
    }

    public func like(post: PostID, by user: UserID) async throws -> Int {
        try await setLike(post, by: user, liked: true)
    }

    public func unlike(post: PostID, by user: UserID) async throws -> Int {
        try await setLike(post, by: user, liked: false)
    }

    /// Walks the likes' `(user_id, created_at)` order, as ``likedPosts(by:offset:limit:)`` does.
    public func likedPostIDs(by user: UserID, limit: Int) async throws -> [PostID] {
        try await pool.withConnection { connection in
            try connection.query("SELECT post_id FROM likes WHERE user_id = \(user.rawValue) ORDER BY created_at DESC, post_id DESC LIMIT \(limit)").map { PostID(rawValue: try $0.decode(0)) }
        }
    }

    /// Folds every post's pending like deltas (those a crash or a failover left between a
    /// batch's commit and its fold); the number of posts folded.
    public static func foldPendingLikes(_ pool: PostgresPool) async throws -> Int {
        try await pool.statement { connection in
            try connection.query("SELECT count(fold_likes(post_id))::int FROM (SELECT DISTINCT post_id FROM post_like_deltas) pending")
                .single().decode(0)
        }
    }

    /// The change and the post's count after it, in the post's next batch of likes
    /// (``LikeBatches``, `set_likes_group` and `fold_likes`, migrations 0033–0034 and 0040).
    private func setLike(_ post: PostID, by user: UserID, liked: Bool) async throws -> Int {
        do {
            guard let count = try await likes.submit(.init(user: user, liked: liked), to: post) else { throw DomainError.notFound("post") }
            return count
        } catch let error as PostgresError where error.code == .foreignKeyViolation {
            throw DomainError.notFound("post")
        }
    }

    /// Hashtags as one parameter, for `string_to_array($n, ' ')`: tags hold no spaces
    /// (PostRules.hashtag), and an empty list is the empty string, which makes `{}`.
    static func tagText(_ tags: [String]) -> String {
        tags.joined(separator: " ")
    }

    /// Locks the post and checks `requester` may change it; returns its window and when it was posted.
    /// The post's window, locked for the change, and whether it is another member's (an
    /// admin's change, audited).
    private static func authorize(_ id: PostID, requester: UserID, isAdmin: Bool,
                                  _ connection: PostgresConnection) throws -> (start: Date, end: Date, postedAt: Date, othersPost: Bool) {
        guard let row = try connection.query(
            "SELECT submitted_by, group_buying_start, group_buying_end, posted_at FROM posts WHERE id = \(id.rawValue) FOR UPDATE").first
        else { throw DomainError.notFound("post") }
        let submitter: UUID? = try row.decode(0)
        guard isAdmin || submitter == requester.rawValue else {
            throw DomainError.forbidden("Only the post's submitter or an admin may change it.")
        }
        return (try row.decode(1), try row.decode(2), try row.decode(3), submitter != requester.rawValue)
    }

    static func mappingPostErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError where error.code == .foreignKeyViolation && error.constraint == "posts_influencer_id_fkey" {
            throw DomainError.notFound("influencer")
        } catch let error as PostgresError where error.code == .foreignKeyViolation && error.constraint == "posts_category_id_fkey" {
            throw DomainError.invalid(field: "category", message: "category is not a known category")
        } catch let error as PostgresError where error.code == .uniqueViolation && error.constraint == "posts_dedup_key" {
            throw DomainError.conflict("post")
        }
    }
}

/// Recently computed rankings (the ranked posts, as nobody in particular sees them) by key, each valid for `ttl` seconds.
final class RankingCache: Sendable {
    private let ttl: TimeInterval
    private let entries = Mutex<[String: (computedAt: Date, posts: [Post])]>([:])

    init(ttl: TimeInterval) {
        self.ttl = ttl
    }

    func posts(for key: String, now: Date) -> [Post]? {
        entries.withLock { entries in
            guard let entry = entries[key], now.timeIntervalSince(entry.computedAt) < ttl, now >= entry.computedAt else { return nil }
            return entry.posts
        }
    }

    func store(_ posts: [Post], for key: String, now: Date) {
        entries.withLock { $0[key] = (now, posts) }
    }
}
