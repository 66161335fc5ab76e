import Codecs
import Domain
import Foundation
import PostgresDriver

/// Loads the benchmark dataset with PostgreSQL's COPY protocol: influencers, posts, users
/// and likes in four streams, with triggers off during the load and every counter (likes,
/// posts per category) and prepared feed day rebuilt at the end, then `ANALYZE`. Needs an empty catalog (the
/// usernames are `bulk_…`) and a superuser (to switch triggers off for the session).
public struct PostgresBulkSeeder: Sendable {
    /// How much to load.
    public struct Plan: Sendable {
        /// Rows of influencers.
        public var influencers: Int
        /// Rows of posts.
        public var posts: Int
        /// Rows of users.
        public var users: Int
        /// Rows of likes.
        public var likes: Int
        public init(influencers: Int, posts: Int, users: Int, likes: Int) {
            (self.influencers, self.posts, self.users, self.likes) = (influencers, posts, users, likes)
        }
        /// Total rows, for progress.
        public var rows: Int { influencers + posts + users + likes }
    }

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Loads `plan` from `seed`, calling `progress` with rows written so far and `stage` as
    /// each step after the rows begins (they take most of an hour at 10 M posts).
    public func seed(_ plan: Plan, seed: UInt64, now: Date, progress: @escaping @Sendable (Int) -> Void,
                     stage: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        try await pool.withConnection { connection in
            // One transaction: a load that fails (a database already seeded, a full disk)
            // leaves the database as it was, its indexes included.
            try connection.transaction { connection in
                try connection.execute(script: "SET LOCAL session_replication_role = replica")
                // The secondary indexes (those no constraint owns: unique keys and foreign
                // keys need theirs) are built once at the end, from sorted input, instead of
                // row by row: maintained during the load, the 13 indexes of posts held COPY
                // to 12–38 k rows/s at 10 M posts, and the search-gram update wrote every
                // post into each of them a second time.
                let secondary: [(name: String, definition: String)] = try connection.query("""
                    SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
                    WHERE i.indrelid IN ('influencers'::regclass, 'users'::regclass, 'posts'::regclass, 'likes'::regclass, 'post_hashtags'::regclass,
                                         'post_popularity'::regclass)
                      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
                    ORDER BY 1
                    """).map { (try $0.decode(0), try $0.decode(1)) }
                for index in secondary { try connection.execute(script: "DROP INDEX \(unescaped: index.name)") }
                try load(plan, seed: seed, now: now, connection, progress: progress, stage: stage)
                stage("building \(secondary.count) indexes")
                try connection.execute(script: "SET LOCAL maintenance_work_mem = '1GB'")
                for index in secondary { try connection.execute(script: "\(unescaped: index.definition)") }
                stage("statistics (ANALYZE)")
                try connection.execute(script: "ANALYZE")
            }
        }
    }

    /// The rows, in replica mode (no triggers), then every counter and derived row rebuilt.
    private func load(_ plan: Plan, seed: UInt64, now: Date, _ connection: PostgresConnection, progress: @escaping @Sendable (Int) -> Void,
                      stage: (String) -> Void) throws {
        var random = SeededRandom(seed: seed)
        func stream(_ table: String, _ columns: [String], count: Int, row: (Int) -> String) throws {
            var index = 0
            try connection.copy(into: table, columns: columns) {
                guard index < count else { return nil }
                var chunk = ""
                chunk.reserveCapacity(80_000)
                while index < count && chunk.utf8.count < 64_000 {
                    chunk += row(index)
                    index += 1
                }
                progress(Self.done(before: table, plan: plan) + index)
                return chunk
            }
        }
        let firstInfluencer: Int = try connection.query("SELECT COALESCE(max(id), 0)::int + 1 FROM influencers").single().decode(0)
        try stream("influencers", ["username", "full_name", "followers_count", "category_id", "profile_pic_url"], count: plan.influencers) { index in
            let category = SampleNames.categories[index % 13]
            let names = SampleNames.influencer(index, category: category, prefix: "bulk_")
            return "\(names.username)\t\(names.fullName)\t\(Int.random(in: 0...800_000, using: &random))\t\(category)\thttps://cdn.example.com/p/\(index).jpg\n"
        }
        let influencerIDs: [Int] = try connection.query("SELECT id FROM influencers WHERE username LIKE 'bulk\\_%' ORDER BY id").map { try $0.decode(0) }
        guard influencerIDs.count == plan.influencers, influencerIDs.first == firstInfluencer || plan.influencers == 0 else {
            throw PostgresError(message: "bulk seeding needs a database without bulk_ influencers; use a fresh database")
        }
        let firstPost: Int = try connection.query("SELECT COALESCE(max(id), 0)::int + 1 FROM posts").single().decode(0)
        let nowSeconds = now.timeIntervalSince1970
        var userIDs: [UUID] = []
        userIDs.reserveCapacity(plan.users)
        var userRandom = SeededRandom(seed: seed &+ 2)
        try stream("users", ["id", "is_anonymous", "created_at"], count: plan.users) { index in
            let id = userRandom.uuid()
            userIDs.append(id)
            return "\(id.lowercasedText)\t\(index % 10 == 9 ? "t" : "f")\t\(Self.timestamp(nowSeconds - Double(index % 90) * 86_400))\n"
        }
        // Likes are generated twice from the same seed: once to count them per post, so
        // posts are written with their final likes_count (no million-row update after),
        // and once to stream them.
        let likes = LikePlan(users: plan.users, posts: plan.posts, likes: plan.users == 0 || plan.posts == 0 ? 0 : plan.likes, seed: seed &+ 3)
        var likeCounts = [Int32](repeating: 0, count: plan.posts)
        likes.forEach { _, post in likeCounts[post] += 1 }
        try stream("posts", ["influencer_id", "product_name", "price", "category_id", "group_buying_start", "group_buying_end", "posted_at", "likes_count",
                             "hashtags", "source"], count: plan.posts) { index in
            let influencer = influencerIDs[random.skewed(influencerIDs.count, power: 1.5)]
            let category = SampleNames.categories[(influencer + index) % 13]
            let product = SampleNames.products[category]![index % 5]
            // Windows from 200 days ago to 15 days ahead, lasting 1–30 days.
            let start = nowSeconds - 200 * 86_400 + Double.random(in: 0...(215 * 86_400), using: &random)
            let end = start + Double.random(in: 86_400...(30 * 86_400), using: &random)
            let price = Int.random(in: 1...300, using: &random) * 1000 - 100
            // Hashtags from what the post is, without a draw (the other fields stay as
            // they were): its category (~77 k posts each), its product's first word, and
            // one of 1,000 rarer tags (~1 k posts each).
            let tags = "{\(category),\(product.split(separator: " ")[0]),tag\(index % 1000)}"
            return "\(influencer)\t\(product) \(index)\t\(price)\t\(category)\t\(Self.timestamp(start))\t\(Self.timestamp(end))\t\(Self.timestamp(start - 86_400))\t\(likeCounts[index])\t\(tags)\timport\n"
        }
        let pairs = likes.makeIterator()
        var produced = 0
        try stream("likes", ["user_id", "post_id", "created_at"], count: likes.likes) { _ in
            // The stream asks for exactly `likes.likes` rows, as many as the plan yields.
            let (user, post) = pairs.next()!
            produced += 1
            return "\(userIDs[user].lowercasedText)\t\(firstPost + post)\t\(Self.timestamp(nowSeconds - Double(produced % 2_592_000)))\n"
        }
        stage("search grams of \(plan.posts) posts")
        // The search grams (migration 0013) come from a row trigger, off while loading:
        // without them every bulk post was invisible to search (a search of a word in
        // 565 of 6,000 bulk posts found none). Still in replica mode, so the update fires
        // no counter triggers.
        try connection.execute("""
            UPDATE posts p SET search_grams = search_grams(p.product_name) || i.search_grams
            FROM influencers i WHERE i.id = p.influencer_id AND p.id >= \(firstPost)
            """)
        // The popular order's copy of each post (migration 0039) comes from a trigger too:
        // without it, bulk posts were missing from sort=popular and the Top 10 (at 10 M,
        // every popular search then read all its matches and ran into the timeout).
        try connection.execute("""
            INSERT INTO post_popularity (id, likes_count, posted_at, group_buying_start, group_buying_end, category_id, influencer_id)
            SELECT id, likes_count, posted_at, group_buying_start, group_buying_end, category_id, influencer_id FROM posts WHERE id >= \(firstPost)
            """)
        try connection.execute(script: "SET LOCAL session_replication_role = origin")
        stage("counters, feed days and hashtag rows")
        try connection.execute(script: """
            UPDATE category_post_counts cc SET post_count = COALESCE(c.n, 0)
                FROM categories k LEFT JOIN (SELECT category_id, count(*)::int AS n FROM posts GROUP BY category_id) c ON c.category_id = k.id
                WHERE cc.category_id = k.id;
            DELETE FROM feed_ranks;
            INSERT INTO feed_ranks (day, post_id, category_id, rank)
                SELECT d.day, p.id, p.category_id, feed_rank(p.id, d.day) FROM posts p JOIN feed_days d ON p.group_buying_end >= d.day_start;
            UPDATE feed_days SET built_through = NULL;
            SELECT post_day_counts_rebuild();
            SELECT post_end_slots_rebuild();
            -- One statement, whose trigger counts each tag once (migration 0027; counted
            -- per row, 3 M upserts of ~1,000 rows in one transaction walked each other's
            -- row versions for over 10 minutes on 1 M posts).
            INSERT INTO post_hashtags (tag, post_id, posted_at)
                SELECT DISTINCT t, p.id, p.posted_at FROM posts p, unnest(p.hashtags) t ON CONFLICT DO NOTHING;
            SELECT post_window_bounds_widen(max(group_buying_end - group_buying_start), min(group_buying_start - posted_at),
                                            max(group_buying_start - posted_at)) FROM posts;
            """)
    }

    private static func done(before table: String, plan: Plan) -> Int {
        switch table {
        case "influencers": 0
        case "users": plan.influencers
        case "posts": plan.influencers + plan.users
        default: plan.influencers + plan.posts + plan.users
        }
    }

    /// `timestamptz` text in UTC for COPY.
    private static func timestamp(_ seconds: TimeInterval) -> String {
        PostgresTimestamp.format(Date(timeIntervalSince1970: seconds))
    }
}

/// The (user, post) pairs of the bulk likes, reproducible from a seed: each user likes
/// distinct posts, chosen with a strong skew towards a few hot ones.
struct LikePlan: Sequence {
    let users: Int
    let posts: Int
    let likes: Int
    let seed: UInt64

    func forEach(_ body: (Int, Int) -> Void) {
        for (user, post) in self { body(user, post) }
    }

    func makeIterator() -> AnyIterator<(Int, Int)> {
        var random = SeededRandom(seed: seed)
        let perUser = users == 0 ? 0 : Swift.max(1, likes / users)
        var user = 0, produced = 0
        var liked = Set<Int>()
        return AnyIterator {
            guard produced < likes else { return nil }
            if liked.count >= perUser && user + 1 < users { user += 1; liked.removeAll(keepingCapacity: true) }
            var post = random.skewed(posts, power: 3)
            while liked.contains(post) { post = (post + 1) % posts }
            liked.insert(post)
            produced += 1
            return (user, post)
        }
    }
}
