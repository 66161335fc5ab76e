import Codecs
import Domain
import Foundation
import PostgresDriver

extension PostgresDemoSeeder {
    /// Users following influencers: the first `followingUsers` demo users follow 3–30 demo
    /// influencers each, skewed towards the first (the most followed), so schedules and
    /// `is_followed` have something to show.
    static let followingUsers = 500

    static func follows(_ random: inout SeededRandom, users: [UUID], _ connection: PostgresConnection) throws -> Int {
        var rows: [(UUID, Int)] = []
        for user in users.prefix(followingUsers) {
            for _ in 0..<Int.random(in: 3...30, using: &random) {
                rows.append((user, random.skewed(influencerCount, power: 1.5)))
            }
        }
        try connection.execute(script: "CREATE TEMP TABLE demo_follows (user_id uuid, influencer integer) ON COMMIT DROP")
        var next = 0
        try connection.copy(into: "demo_follows", columns: ["user_id", "influencer"]) {
            guard next < rows.count else { return nil }
            var chunk = ""
            while next < rows.count && chunk.utf8.count < 64_000 {
                chunk += "\(rows[next].0.lowercasedText)\t\(rows[next].1)\n"
                next += 1
            }
            return chunk
        }
        // Influencer number N is the Nth demo influencer by id (they are inserted in order).
        return try connection.execute("""
            INSERT INTO follows (user_id, influencer_id)
            SELECT DISTINCT f.user_id, i.id FROM demo_follows f
            JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS number FROM influencers WHERE username LIKE 'demo.%') i ON i.number = f.influencer
            ON CONFLICT DO NOTHING
            """)
    }

    /// Pending influencer requests (for the admin CLI and "my requests"), by the first
    /// demo users; the names are not demo influencers.
    static let pendingRequests = ["gonggu.queen", "daily.deal.mom", "camping_jun", "beauty.insider", "pet.lover.22"]

    static func influencerRequests(users: [UUID], _ connection: PostgresConnection) throws -> Int {
        var inserted = 0
        for (index, username) in pendingRequests.enumerated() {
            inserted += try connection.execute("""
                INSERT INTO influencer_requests (username, requested_by) SELECT \(username), \(users[index % users.count])
                WHERE NOT EXISTS (SELECT 1 FROM influencers WHERE username = \(username)) ON CONFLICT (username) DO NOTHING
                """)
        }
        return inserted
    }
}
