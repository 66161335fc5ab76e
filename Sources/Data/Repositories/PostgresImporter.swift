import Domain
import Foundation

/// An influencer row of an import file, already validated.
public struct InfluencerImport: Sendable {
    public let line: Int
    public let username: String
    public let fullName: String?
    public let profilePicURL: String?
    public let externalURL: String?
    public let biography: String?
    public let followersCount: Int
    public let category: String?

    /// Creates the row.
    public init(line: Int, username: String, fullName: String?, profilePicURL: String?, externalURL: String?,
                biography: String?, followersCount: Int, category: String?) {
        self.line = line
        self.username = username
        self.fullName = fullName
        self.profilePicURL = profilePicURL
        self.externalURL = externalURL
        self.biography = biography
        self.followersCount = followersCount
        self.category = category
    }
}

/// A post row of an import file, already validated; the influencer is named by username.
public struct PostImport: Sendable {
    public let line: Int
    public let influencerUsername: String
    public let post: NewPost

    /// Creates the row.
    public init(line: Int, influencerUsername: String, post: NewPost) {
        self.line = line
        self.influencerUsername = influencerUsername
        self.post = post
    }
}

/// What importing one row did.
public enum ImportOutcome: Sendable, Equatable {
    case inserted, updated, unchanged
    /// The row was refused by a rule only the database can check.
    case rejected(String)
}

/// Upserts import rows by natural key: influencers by username, posts by the
/// de-duplication rule (influencer, product, window). Re-importing a file changes nothing.
public struct PostgresImporter: Sendable {
    private let pool: PostgresPool

    /// Creates the importer over a pool.
    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Upserts influencers in transactions of `batchSize` rows (one transaction if `atomic`;
    /// then any rejection rolls everything back).
    public func influencers(_ rows: [InfluencerImport], atomic: Bool, batchSize: Int = 500) async throws -> [ImportOutcome] {
        try await run(rows, atomic: atomic, batchSize: batchSize) { row, connection in
            guard let result = try connection.query("""
                INSERT INTO influencers (username, full_name, profile_pic_url, external_url, biography, followers_count, category_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT ON CONSTRAINT influencers_username_key DO UPDATE SET
                    full_name = EXCLUDED.full_name, profile_pic_url = EXCLUDED.profile_pic_url, external_url = EXCLUDED.external_url,
                    biography = EXCLUDED.biography, followers_count = EXCLUDED.followers_count, category_id = EXCLUDED.category_id
                WHERE (influencers.full_name, influencers.profile_pic_url, influencers.external_url, influencers.biography,
                       influencers.followers_count, influencers.category_id)
                      IS DISTINCT FROM (EXCLUDED.full_name, EXCLUDED.profile_pic_url, EXCLUDED.external_url, EXCLUDED.biography,
                                        EXCLUDED.followers_count, EXCLUDED.category_id)
                RETURNING (xmax = 0)
                """, [row.username, row.fullName, row.profilePicURL, row.externalURL, row.biography, row.followersCount, row.category]).first
            else { return .unchanged }
            return try result.decode(0, as: Bool.self) ? .inserted : .updated
        }
    }

    /// Upserts posts like ``influencers(_:atomic:batchSize:)``.
    public func posts(_ rows: [PostImport], atomic: Bool, batchSize: Int = 500) async throws -> [ImportOutcome] {
        try await run(rows, atomic: atomic, batchSize: batchSize) { row, connection in
            guard let influencer = try connection.query("SELECT id FROM influencers WHERE username = $1", [row.influencerUsername]).first else {
                return .rejected("influencer \(row.influencerUsername) does not exist")
            }
            let post = row.post
            guard let result = try connection.query("""
                INSERT INTO posts (influencer_id, product_name, price, category_id, display_url, group_buying_url, group_buying_start, group_buying_end)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT ON CONSTRAINT posts_dedup_key DO UPDATE SET
                    price = EXCLUDED.price, category_id = EXCLUDED.category_id, display_url = EXCLUDED.display_url,
                    group_buying_url = EXCLUDED.group_buying_url
                WHERE (posts.price, posts.category_id, posts.display_url, posts.group_buying_url)
                      IS DISTINCT FROM (EXCLUDED.price, EXCLUDED.category_id, EXCLUDED.display_url, EXCLUDED.group_buying_url)
                RETURNING (xmax = 0)
                """, [try influencer.decode(0, as: Int.self), post.productName, post.price, post.category.rawValue, post.displayURL,
                      post.groupBuyingURL, post.groupBuyingStart, post.groupBuyingEnd]).first
            else { return .unchanged }
            return try result.decode(0, as: Bool.self) ? .inserted : .updated
        }
    }

    private struct AtomicRejection: Error {}

    private func run<Row: Sendable>(
        _ rows: [Row], atomic: Bool, batchSize: Int,
        _ upsert: @escaping @Sendable (Row, PostgresConnection) throws -> ImportOutcome
    ) async throws -> [ImportOutcome] {
        let batches = atomic ? [rows[...]] : stride(from: 0, to: rows.count, by: batchSize).map { rows[$0..<min($0 + batchSize, rows.count)] }
        var outcomes: [ImportOutcome] = []
        for batch in batches {
            let batch = Array(batch)
            let result: [ImportOutcome] = try await pool.withConnection { connection in
                var results: [ImportOutcome] = []
                do {
                    try connection.transaction { connection in
                        for row in batch { results.append(try upsert(row, connection)) }
                        if atomic, results.contains(where: { if case .rejected = $0 { true } else { false } }) { throw AtomicRejection() }
                    }
                } catch is AtomicRejection {
                    // Rolled back: report what would have happened, nothing was written.
                }
                return results
            }
            outcomes += result
        }
        return outcomes
    }
}
