import Domain
import Foundation
import PostgresDriver

/// ``InfluencerRepository`` over `influencers`.
public struct PostgresInfluencerRepository: InfluencerRepository {
    /// Profiles and the search: a replica when one is healthy and has the caller's writes.
    private var reads: ScopedReads

    public init(pool: PostgresPool, reads: (any ReadPoolSource)? = nil) {
        self.reads = ScopedReads(reads ?? pool)
    }

    public func scoped(_ scope: RequestScope) -> PostgresInfluencerRepository {
        var copy = self
        copy.reads = reads.scoped(scope)
        return copy
    }

    /// The profile columns for `viewer` (`is_followed`, one primary-key probe).
    static func columns(viewer: UserID?) -> SQL {
        """
        i.id, i.username, i.full_name, i.profile_pic_url, i.external_url, i.biography, i.followers_count, i.category_id,
        (SELECT count(*)::int FROM posts p WHERE p.influencer_id = i.id), i.app_followers_count,
        COALESCE((SELECT true FROM follows f WHERE f.user_id = \(viewer?.rawValue)::uuid AND f.influencer_id = i.id), false)
        """
    }

    public func search(_ search: String?, viewer: UserID?, offset: Int, limit: Int) async throws -> Page<InfluencerProfile> {
        try await reads.readPool().withConnection { connection in
            var matches: SQL = "WHERE i.hidden_at IS NULL"
            if let search {
                // The grams of migration 0013, as the feed's search (see FeedSQL.search),
                // planned for the term: `a` matches 20 k of 30 k influencers, `김민` a few.
                let pattern = "%" + FeedSQL.escapeLike(search) + "%"
                matches = """
                    WHERE i.hidden_at IS NULL AND i.search_grams @> search_term_grams(\(search))
                      AND (search_term_exact(\(search)) OR lower(i.username) LIKE lower(\(pattern)) ESCAPE '\\' OR lower(i.full_name) LIKE lower(\(pattern)) ESCAPE '\\')
                    """
            }
            let run = search == nil ? connection.query : connection.queryPlannedForValues
            // The page's ids first, then their columns: in one query the post-count subquery
            // ran for every skipped row too (page 500: 119 ms on 30,000 influencers). The
            // total rides along; an empty page (past the end) counts on its own.
            let rows = try run("""
                SELECT (SELECT count(*)::int FROM influencers i \(matches)), \(Self.columns(viewer: viewer)) FROM (
                    SELECT i.id FROM influencers i \(matches) ORDER BY i.followers_count DESC, i.id OFFSET \(offset) LIMIT \(limit)
                ) page JOIN influencers i ON i.id = page.id
                ORDER BY i.followers_count DESC, i.id
                """)
            let items = try rows.map { try Self.decode($0, from: 1) }
            let total = try rows.first?.decode(0, as: Int.self) ?? run("SELECT count(*)::int FROM influencers i \(matches)").single().decode(0)
            return Page(items: items, total: total)
        }
    }

    public func influencer(id: InfluencerID, viewer: UserID?) async throws -> InfluencerProfile? {
        try await reads.readPool().withConnection { connection in
            try connection.query("SELECT \(Self.columns(viewer: viewer)) FROM influencers i WHERE i.id = \(id.rawValue) AND i.hidden_at IS NULL")
                .first.map { try Self.decode($0, from: 0) }
        }
    }

    /// The positions of ``columns(viewer:)``, in order.
    private enum Column: Int {
        case id, username, fullName, profilePicURL, externalURL, biography, followersCount, category, postCount
        case appFollowersCount, isFollowed
    }

    /// The profile in `row`, whose ``columns(viewer:)`` start at column `first`.
    static func decode(_ row: PostgresRow, from first: Int) throws -> InfluencerProfile {
        func column<T: PostgresDecodable>(_ column: Column, as type: T.Type = T.self) throws -> T {
            try row.decode(first + column.rawValue)
        }
        return InfluencerProfile(
            summary: InfluencerSummary(id: InfluencerID(rawValue: try column(.id)), username: try column(.username),
                                       fullName: try column(.fullName), profilePicURL: try column(.profilePicURL),
                                       externalURL: try column(.externalURL)),
            biography: try column(.biography), followersCount: try column(.followersCount),
            category: (try column(.category, as: String?.self)).map(CategoryID.init(rawValue:)), postCount: try column(.postCount),
            appFollowersCount: try column(.appFollowersCount), isFollowed: try column(.isFollowed))
    }
}
