import Codecs
import Domain
import Foundation
import PostgresDriver

/// A deterministic dataset for trying the app: influencers with Korean names, posts whose
/// buying windows lie in the past, around today and ahead (relative to the day it runs),
/// permanent users who can sign in (`demoN@demo.09market.kr` / `demo-password`), anonymous
/// users, and skewed likes. Running it again changes nothing the same day and moves the
/// windows to the new date on a later day; rows are matched by natural keys, never
/// duplicated. `reset` deletes every demo row first.
public struct PostgresDemoSeeder: Sendable {
    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Rows of influencers.
        public let influencers: Int
        /// Posts added.
        public let postsInserted: Int
        /// Posts whose windows moved to the current date.
        public let postsMoved: Int
        /// Rows of users.
        public let users: Int
        /// Likes added.
        public let likesInserted: Int
        /// Follows added.
        public let followsInserted: Int
        /// Influencer requests added.
        public let requestsInserted: Int
    }

    /// Sizes of the demo dataset.
    public static let influencerCount = 300, postCount = 5_000, permanentUsers = 2_000, anonymousUsers = 300, likeCount = 50_000

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Seeds with `seed`, relative to `now`; `passwordHash` is stored for every demo user.
    public func seed(seed: UInt64, now: Date, reset: Bool, passwordHash: String) async throws -> Report {
        try await pool.transaction(maxAttempts: 1) { connection in
            if reset {
                try connection.execute("DELETE FROM influencers WHERE username LIKE 'demo.%'")
                try connection.execute("DELETE FROM influencer_requests WHERE username = ANY(\(PostgresTextArray(Self.pendingRequests))::text[]) AND status = 'processing'")
                try connection.execute("DELETE FROM users WHERE id IN (SELECT user_id FROM identities WHERE subject LIKE '%@demo.09market.kr') OR id IN (SELECT id FROM users WHERE is_anonymous AND created_at = '2000-01-01T00:00:00Z')")
            }
            var random = SeededRandom(seed: seed)
            let influencers = try Self.influencers(&random, connection)
            let (inserted, moved) = try Self.posts(&random, now: now, connection)
            let users = try Self.users(&random, passwordHash: passwordHash, connection)
            let likes = try Self.likes(&random, users: users, connection)
            let follows = try Self.follows(&random, users: users, connection)
            let requests = try Self.influencerRequests(users: users, connection)
            return Report(influencers: influencers, postsInserted: inserted, postsMoved: moved, users: users.count, likesInserted: likes,
                          followsInserted: follows, requestsInserted: requests)
        }
    }

    private static func influencers(_ random: inout SeededRandom, _ connection: PostgresConnection) throws -> Int {
        try connection.execute(script: "CREATE TEMP TABLE demo_influencers (username text, full_name text, followers integer, category text) ON COMMIT DROP")
        var index = 0
        try connection.copy(into: "demo_influencers", columns: ["username", "full_name", "followers", "category"]) {
            guard index < influencerCount else { return nil }
            var chunk = ""
            while index < influencerCount {
                let category = SampleNames.categories[index % 13]
                let names = SampleNames.influencer(index, category: category, prefix: "demo.")
                chunk += "\(names.username)\t\(names.fullName)\t\(Int(pow(10, Double.random(in: 3...6, using: &random))))\t\(category)\n"
                index += 1
            }
            return chunk
        }
        try connection.execute("""
            INSERT INTO influencers (username, full_name, followers_count, category_id, profile_pic_url, external_url)
            SELECT username, full_name, followers, category, 'https://picsum.photos/seed/' || username || '/200',
                   'https://www.instagram.com/' || username
            FROM demo_influencers ON CONFLICT ON CONSTRAINT influencers_username_key DO NOTHING
            """)
        return influencerCount
    }

    private static func posts(_ random: inout SeededRandom, now: Date, _ connection: PostgresConnection) throws -> (Int, Int) {
        try connection.execute(script: "CREATE TEMP TABLE demo_posts (username text, name text, price integer, category text, starts timestamptz, ends timestamptz, tags text) ON COMMIT DROP")
        // Windows are placed on whole Korea days relative to today, so a same-day rerun matches.
        let koreaMidnight = KoreaDay(containing: now).start.timeIntervalSince1970
        var index = 0
        try connection.copy(into: "demo_posts", columns: ["username", "name", "price", "category", "starts", "ends", "tags"]) {
            guard index < postCount else { return nil }
            var chunk = ""
            while index < postCount && chunk.utf8.count < 64_000 {
                let influencer = random.skewed(influencerCount, power: 1.3)
                let category = SampleNames.categories[influencer % 13]
                let names = SampleNames.influencer(influencer, category: category, prefix: "demo.")
                let product = SampleNames.products[category]![Int.random(in: 0..<5, using: &random)]
                let startDay = Double(Int.random(in: -40...10, using: &random))
                let hour = Double(Int.random(in: 9...21, using: &random))
                let start = koreaMidnight + startDay * 86_400 + hour * 3600
                let end = start + Double(Int.random(in: 1...14, using: &random)) * 86_400
                let price = Int.random(in: 1...200, using: &random) * 1000 - 100
                // Hashtags from what the post already is (no draw: earlier fields stay as they were).
                let tags = [category, "공구", String(product.split(separator: " ").first ?? "")].joined(separator: " ")
                chunk += "\(names.username)\t\(product) #\(index + 1)\t\(price)\t\(category)\t\(PostgresTimestamp.format(Date(timeIntervalSince1970: start)))\t\(PostgresTimestamp.format(Date(timeIntervalSince1970: end)))\t\(tags)\n"
                index += 1
            }
            return chunk
        }
        let moved = try connection.execute("""
            UPDATE posts p SET group_buying_start = d.starts, group_buying_end = d.ends, price = d.price, category_id = d.category,
                               hashtags = string_to_array(d.tags, ' ')
            FROM demo_posts d JOIN influencers i ON i.username = d.username
            WHERE p.influencer_id = i.id AND p.product_name = d.name
              AND (p.group_buying_start, p.group_buying_end, p.price, p.category_id, p.hashtags)
                  IS DISTINCT FROM (d.starts, d.ends, d.price, d.category, string_to_array(d.tags, ' '))
            """)
        let inserted = try connection.execute("""
            INSERT INTO posts (influencer_id, product_name, price, category_id, group_buying_start, group_buying_end, posted_at,
                               display_url, hashtags, source)
            SELECT i.id, d.name, d.price, d.category, d.starts, d.ends, d.starts - interval '1 day', 'https://picsum.photos/seed/' || md5(d.name) || '/600',
                   string_to_array(d.tags, ' '), 'import'
            FROM demo_posts d JOIN influencers i ON i.username = d.username
            WHERE NOT EXISTS (SELECT 1 FROM posts p WHERE p.influencer_id = i.id AND p.product_name = d.name)
            """)
        return (inserted, moved)
    }

    private static func users(_ random: inout SeededRandom, passwordHash: String, _ connection: PostgresConnection) throws -> [UUID] {
        var users: [UUID] = []
        for index in 0..<(permanentUsers + anonymousUsers) {
            let id = random.uuid()
            users.append(id)
            if index < permanentUsers {
                let email = "demo\(index + 1)@demo.09market.kr"
                let created = try connection.execute(
                    "INSERT INTO users (id, is_anonymous, nickname, created_at) VALUES (\(id), false, \("공구러\(index + 1)"), now()) ON CONFLICT (id) DO NOTHING")
                if created == 1 {
                    try connection.execute("""
                        INSERT INTO identities (id, user_id, provider, subject, email, password_hash) VALUES (\(random.uuid()), \(id), 'email', \(email), \(email), \(passwordHash))
                        ON CONFLICT DO NOTHING
                        """)
                } else {
                    _ = random.uuid()
                }
            } else {
                // A fixed creation time marks demo anonymous users, so --reset can find them.
                try connection.execute("INSERT INTO users (id, is_anonymous, created_at) VALUES (\(id), true, '2000-01-01T00:00:00Z') ON CONFLICT (id) DO NOTHING")
            }
        }
        return Array(users.prefix(permanentUsers))
    }

    private static func likes(_ random: inout SeededRandom, users: [UUID], _ connection: PostgresConnection) throws -> Int {
        try connection.execute(script: "CREATE TEMP TABLE demo_likes (user_id uuid, rank integer) ON COMMIT DROP")
        var produced = 0
        try connection.copy(into: "demo_likes", columns: ["user_id", "rank"]) {
            guard produced < likeCount else { return nil }
            var chunk = ""
            while produced < likeCount && chunk.utf8.count < 64_000 {
                chunk += "\(users[Int.random(in: 0..<users.count, using: &random)].lowercasedText)\t\(random.skewed(postCount, power: 2.5) + 1)\n"
                produced += 1
            }
            return chunk
        }
        // Post number N is the demo post named '… #N'; users may post under demo
        // influencers too, so names not ending in ' #<digits>' are skipped. Triggers are bypassed for the bulk
        // insert and the counts of the touched posts recomputed exactly afterwards.
        try connection.execute(script: "SET LOCAL session_replication_role = replica")
        let inserted = try connection.execute("""
            INSERT INTO likes (user_id, post_id)
            SELECT DISTINCT l.user_id, p.id FROM demo_likes l
            JOIN (SELECT id, substring(product_name FROM ' #([0-9]{1,9})$')::int AS number FROM posts
                  WHERE influencer_id IN (SELECT id FROM influencers WHERE username LIKE 'demo.%')
                    AND product_name ~ ' #[0-9]{1,9}$') p ON p.number = l.rank
            ON CONFLICT DO NOTHING
            """)
        try connection.execute(script: "SET LOCAL session_replication_role = origin")
        try connection.execute("""
            UPDATE posts p SET likes_count = (SELECT count(*) FROM likes l WHERE l.post_id = p.id)
            WHERE p.influencer_id IN (SELECT id FROM influencers WHERE username LIKE 'demo.%')
              AND p.likes_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id)
            """)
        return inserted
    }
}
