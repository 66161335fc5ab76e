import Domain
import Foundation
import PostgresDriver

/// Upserts import rows by natural key: influencers by username, posts by the
/// de-duplication rule (influencer, product, window). Re-importing a file changes nothing.
public struct PostgresImporter: ContentIngest {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Upserts influencers in transactions of `batchSize` rows (one transaction if `atomic`;
    /// then any rejection rolls everything back), each as ``InfluencerUpsert`` writes it.
    public func influencers(_ rows: [InfluencerImport], atomic: Bool, batchSize: Int) async throws -> [ImportOutcome] {
        try await run(rows, atomic: atomic, batchSize: batchSize) { batch, connection in
            try batch.map { row in
                // A row the database refuses (a rule only it checks) is that row's rejection,
                // not the batch's: the savepoint keeps the rows before and after it.
                try connection.execute(script: "SAVEPOINT import_row")
                do {
                    let outcome = try InfluencerUpsert.write(row.profile, category: row.category, connection).outcome
                    try connection.execute(script: "RELEASE SAVEPOINT import_row")
                    return outcome
                } catch let error as PostgresError where [.checkViolation, .notNullViolation, .uniqueViolation, .foreignKeyViolation, .other].contains(error.code) {
                    try connection.execute(script: "ROLLBACK TO SAVEPOINT import_row")
                    return .rejected(error.message)
                }
            }
        }
    }

    /// Upserts posts like ``influencers(_:atomic:batchSize:)``, a batch per statement: the
    /// rows are copied into a temporary table and merged with one `INSERT … SELECT … ON
    /// CONFLICT`, so counters and the feed order are maintained once per batch, not per row.
    /// Outcomes are reported in row order.
    public func posts(_ rows: [PostImport], source: PostSource, atomic: Bool, batchSize: Int) async throws -> [ImportOutcome] {
        try await run(rows, atomic: atomic, batchSize: batchSize) { batch, connection in try Self.mergePosts(batch, source: source, connection) }
    }

    public func knownPosts(instagramPostIDs: [String]) async throws -> Set<String> {
        guard !instagramPostIDs.isEmpty else { return [] }
        return try await pool.statement { connection in
            Set(try connection.query("SELECT DISTINCT instagram_post_id FROM posts WHERE instagram_post_id = ANY(\(PostgresTextArray(instagramPostIDs))::text[])").map { try $0.decode(0, as: String.self) })
        }
    }

    public func influencerUsernames(after: String?, limit: Int) async throws -> [String] {
        try await pool.statement { connection in
            try connection.query("SELECT username FROM influencers WHERE username > \(after ?? "") ORDER BY username LIMIT \(limit)").map { try $0.decode(0, as: String.self) }
        }
    }

    private static func mergePosts(_ rows: [PostImport], source: PostSource, _ connection: PostgresConnection) throws -> [ImportOutcome] {
        try connection.execute(script: """
            CREATE TEMP TABLE import_posts (position integer, username text, product_name text, price integer, category_id text,
                display_url text, group_buying_url text, starts timestamptz, ends timestamptz, post_url text, caption text,
                hashtags text, post_type text, instagram_post_id text, posted_at timestamptz, influencer_id bigint) ON COMMIT DROP
            """)
        var index = 0
        try connection.copy(into: "import_posts", columns: ["position", "username", "product_name", "price", "category_id", "display_url",
                                                            "group_buying_url", "starts", "ends", "post_url", "caption", "hashtags", "post_type",
                                                            "instagram_post_id", "posted_at"]) {
            guard index < rows.count else { return nil }
            var chunk = ""
            while index < rows.count && chunk.utf8.count < 64_000 {
                let row = rows[index], post = row.post
                let fields: [String?] = [String(index), row.influencerUsername, post.productName, post.price.map(String.init), post.category.rawValue,
                                         post.displayURL, post.groupBuyingURL, PostgresTimestamp.format(post.groupBuyingStart),
                                         PostgresTimestamp.format(post.groupBuyingEnd), post.details.postURL, post.details.caption,
                                         PostgresPostRepository.tagText(post.details.hashtags), post.details.postType,
                                         post.details.instagramPostID, post.details.postedAt.map(PostgresTimestamp.format)]
                chunk += fields.map(PostgresConnection.copyEscape).joined(separator: "\t") + "\n"
                index += 1
            }
            return chunk
        }
        // The rows' influencers, once, and statistics (the copy leaves none): probed by
        // influencer, a row's key is posts_dedup_key; joined through influencers, the planner
        // walked posts_start, every post of the window's start per row (300-800 ms a call of
        // 1,000 rows sharing one start, at 1 M posts).
        try connection.execute(script: """
            UPDATE import_posts ip SET influencer_id = i.id FROM influencers i WHERE i.username = ip.username;
            ANALYZE import_posts
            """)
        var outcomes = Array(repeating: ImportOutcome.unchanged, count: rows.count)
        for row in try connection.query("SELECT position, username FROM import_posts WHERE influencer_id IS NULL") {
            outcomes[try row.decode(0, as: Int.self)] = .rejected("influencer \(try row.decode(1, as: String.self)) does not exist")
        }
        // A member's post is theirs: a row with its key is answered, and merges nothing.
        for row in try connection.query("""
            DELETE FROM import_posts ip USING posts p
            WHERE (p.influencer_id, p.product_name, p.group_buying_start, p.group_buying_end) = (ip.influencer_id, ip.product_name, ip.starts, ip.ends)
              AND p.source = 'app'
            RETURNING ip.position, p.id
            """) {
            outcomes[try row.decode(0, as: Int.self)] = .conflict("a member submitted this offer (post \(try row.decode(1, as: Int.self))): "
                                                                   + "the same influencer, product and window; bulk rows never change a member's post")
        }
        // What an operator hid stays hidden: rows of a hidden influencer, or naming a hidden
        // post (by its key or its Instagram post), are answered and bring nothing back.
        for row in try connection.query("""
            DELETE FROM import_posts ip
            WHERE ip.influencer_id IN (SELECT id FROM influencers WHERE hidden_at IS NOT NULL)
               OR EXISTS (SELECT 1 FROM hidden_posts h WHERE (h.influencer_id, h.product_name, h.group_buying_start, h.group_buying_end)
                                                              = (ip.influencer_id, ip.product_name, ip.starts, ip.ends))
               OR ip.instagram_post_id IN (SELECT instagram_post_id FROM hidden_posts WHERE instagram_post_id IS NOT NULL)
            RETURNING ip.position
            """) {
            outcomes[try row.decode(0, as: Int.self)] = .conflict("an operator hid this post or its influencer; bulk rows never show it again")
        }
        // A row naming the Instagram post of a stored post, with another product or window
        // (the extraction read the caption differently this time), moves that post to the
        // row's key rather than adding a second offer for the same Instagram post; only
        // when the match is one post to one row and the new key is free.
        var moved = Set<Int>()
        for row in try connection.query("""
            WITH single AS (
                SELECT ip.position, ip.product_name, ip.starts, ip.ends, ip.instagram_post_id, ip.influencer_id
                FROM import_posts ip
                WHERE ip.influencer_id IS NOT NULL AND ip.instagram_post_id IN (SELECT instagram_post_id FROM import_posts WHERE instagram_post_id IS NOT NULL
                                               GROUP BY instagram_post_id HAVING count(*) = 1)
            )
            UPDATE posts p SET product_name = s.product_name, group_buying_start = s.starts, group_buying_end = s.ends
            FROM single s
            WHERE p.instagram_post_id = s.instagram_post_id AND p.influencer_id = s.influencer_id AND p.source <> 'app'
              AND (p.product_name, p.group_buying_start, p.group_buying_end) IS DISTINCT FROM (s.product_name, s.starts, s.ends)
              AND (SELECT count(*) FROM posts r WHERE r.instagram_post_id = s.instagram_post_id AND r.influencer_id = s.influencer_id) = 1
              AND NOT EXISTS (SELECT 1 FROM posts q WHERE q.influencer_id = s.influencer_id AND q.product_name = s.product_name
                                AND q.group_buying_start = s.starts AND q.group_buying_end = s.ends)
            RETURNING s.position
            """) {
            moved.insert(try row.decode(0, as: Int.self))
        }
        for position in moved { outcomes[position] = .updated }
        // The last row of a file wins when it repeats a post; earlier repeats count as unchanged.
        for row in try connection.query("""
            WITH latest AS (
                SELECT DISTINCT ON (ip.influencer_id, ip.product_name, ip.starts, ip.ends) ip.*
                FROM import_posts ip WHERE ip.influencer_id IS NOT NULL
                ORDER BY ip.influencer_id, ip.product_name, ip.starts, ip.ends, ip.position DESC
            ), merged AS (
                INSERT INTO posts (influencer_id, product_name, price, category_id, display_url, group_buying_url, group_buying_start, group_buying_end,
                                   post_url, caption, hashtags, post_type, instagram_post_id, posted_at, source)
                SELECT influencer_id, product_name, price, category_id, display_url, group_buying_url, starts, ends,
                       post_url, caption, string_to_array(hashtags, ' '), post_type, instagram_post_id, COALESCE(posted_at, now()), \(source.rawValue)::text
                FROM latest
                ON CONFLICT ON CONSTRAINT posts_dedup_key DO UPDATE SET
                    price = EXCLUDED.price, category_id = EXCLUDED.category_id, display_url = EXCLUDED.display_url,
                    group_buying_url = EXCLUDED.group_buying_url, post_url = EXCLUDED.post_url, caption = EXCLUDED.caption,
                    hashtags = EXCLUDED.hashtags, post_type = EXCLUDED.post_type,
                    instagram_post_id = COALESCE(EXCLUDED.instagram_post_id, posts.instagram_post_id)
                WHERE posts.source <> 'app' AND (posts.price, posts.category_id, posts.display_url, posts.group_buying_url, posts.post_url, posts.caption,
                       posts.hashtags, posts.post_type, posts.instagram_post_id)
                      IS DISTINCT FROM (EXCLUDED.price, EXCLUDED.category_id, EXCLUDED.display_url, EXCLUDED.group_buying_url,
                                        EXCLUDED.post_url, EXCLUDED.caption, EXCLUDED.hashtags, EXCLUDED.post_type,
                                        COALESCE(EXCLUDED.instagram_post_id, posts.instagram_post_id))
                RETURNING influencer_id, product_name, group_buying_start, group_buying_end, (xmax = 0) AS inserted
            )
            SELECT l.position, m.inserted FROM merged m JOIN latest l
              ON l.influencer_id = m.influencer_id AND l.product_name = m.product_name AND l.starts = m.group_buying_start AND l.ends = m.group_buying_end
            """) {
            outcomes[try row.decode(0, as: Int.self)] = try row.decode(1, as: Bool.self) ? .inserted : .updated
        }
        return outcomes
    }

    private struct AtomicRejection: Error {}

    /// Runs `merge` over batches of `batchSize` rows, each batch in its own transaction (one
    /// transaction for everything when `atomic`, rolled back if any row is rejected; the
    /// outcomes then say what would have happened, and nothing was written).
    private func run<Row: Sendable>(
        _ rows: [Row], atomic: Bool, batchSize: Int,
        _ merge: @escaping @Sendable ([Row], PostgresConnection) throws -> [ImportOutcome]
    ) async throws -> [ImportOutcome] {
        let batches = atomic ? [rows[...]] : stride(from: 0, to: rows.count, by: batchSize).map { rows[$0..<min($0 + batchSize, rows.count)] }
        var outcomes: [ImportOutcome] = []
        for batch in batches {
            let batch = Array(batch)
            outcomes += try await pool.withConnection { connection in
                var results: [ImportOutcome] = []
                do {
                    try connection.transaction { connection in
                        results = try merge(batch, connection)
                        if atomic, results.contains(where: { !$0.isStored }) { throw AtomicRejection() }
                    }
                } catch is AtomicRejection {}
                return results
            }
        }
        return outcomes
    }
}
