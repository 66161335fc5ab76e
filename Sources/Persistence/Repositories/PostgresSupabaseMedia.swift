import Domain
import Foundation
import PostgresDriver

/// An object of the old project's storage and the rows that show it.
public struct SupabaseMediaReference: Sendable, Equatable {
    /// `<bucket>/<path>` as its public URL spells it (percent-encoded).
    public let object: String
    /// The rows referring to it: `post 12`, `user <uuid>`, `influencer 3` (at most five).
    public let rows: [String]
    /// How many rows refer to it.
    public let rowCount: Int
    /// Whether it was adopted by an earlier run.
    public let imported: Bool
}

/// Rows rewritten from the old project's URLs to this server's.
public struct SupabaseMediaRewrite: Sendable, Equatable {
    public var posts = 0
    public var users = 0
    public var influencers = 0
    public var total: Int { posts + users + influencers }

    public init() {}
}

/// The database side of `market09 import supabase-media` (migration 0032): which stored
/// URLs point into the old project's public storage, and, per batch of adopted objects, the
/// mapping recorded and every row rewritten in one transaction (the same rule the tables'
/// triggers apply to URLs that arrive later).
public struct PostgresSupabaseMedia: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Objects under `storageURL` (`https://<project>.supabase.co/storage/v1/object/public/<bucket>`)
    /// that rows refer to, in object order.
    public func references(storageURL: String) async throws -> [SupabaseMediaReference] {
        try await pool.statement { connection in
            try connection.query("""
                WITH refs AS (
                    SELECT supabase_storage_object(display_url) AS object, 'post ' || id AS row FROM posts WHERE left(display_url, length(\(storageURL + "/"))) = \(storageURL + "/")
                    UNION ALL
                    SELECT supabase_storage_object(profile_url), 'user ' || id FROM users WHERE left(profile_url, length(\(storageURL + "/"))) = \(storageURL + "/")
                    UNION ALL
                    SELECT supabase_storage_object(profile_pic_url), 'influencer ' || id FROM influencers WHERE left(profile_pic_url, length(\(storageURL + "/"))) = \(storageURL + "/")
                )
                SELECT r.object, array_to_string((array_agg(r.row ORDER BY r.row))[1:5], ','), count(*)::bigint,
                       EXISTS (SELECT 1 FROM supabase_media m WHERE m.object = r.object)
                FROM refs r WHERE r.object IS NOT NULL GROUP BY r.object ORDER BY r.object
                """).map { row in
                SupabaseMediaReference(object: try row.decode(0), rows: try row.decode(1, as: String.self).split(separator: ",").map(String.init),
                                       rowCount: try row.decode(2), imported: try row.decode(3))
            }
        }
    }

    /// Records the adopted objects (an object imported before keeps its first mapping) and
    /// rewrites every row showing any of `objects` to its URL here, in one transaction.
    public func record(_ adopted: [(object: String, media: StoredMedia, url: String)], rewriting objects: [String]) async throws -> SupabaseMediaRewrite {
        try await pool.transaction { connection in
            for entry in adopted {
                try connection.execute("""
                    INSERT INTO supabase_media (object, media_name, url, bytes) VALUES (\(entry.object), \(entry.media.name), \(entry.url), \(entry.media.bytes)) ON CONFLICT (object) DO NOTHING
                    """)
            }
            var rewrite = SupabaseMediaRewrite()
            let list = PostgresTextArray(objects)
            rewrite.posts = try connection.query("""
                WITH changed AS (UPDATE posts SET display_url = current_media_url(display_url)
                                 WHERE supabase_storage_object(display_url) = ANY(\(list)::text[]) RETURNING 1) SELECT count(*)::bigint FROM changed
                """).single().decode(0)
            rewrite.users = try connection.query("""
                WITH changed AS (UPDATE users SET profile_url = current_media_url(profile_url)
                                 WHERE supabase_storage_object(profile_url) = ANY(\(list)::text[]) RETURNING 1) SELECT count(*)::bigint FROM changed
                """).single().decode(0)
            rewrite.influencers = try connection.query("""
                WITH changed AS (UPDATE influencers SET profile_pic_url = current_media_url(profile_pic_url)
                                 WHERE supabase_storage_object(profile_pic_url) = ANY(\(list)::text[]) RETURNING 1) SELECT count(*)::bigint FROM changed
                """).single().decode(0)
            return rewrite
        }
    }
}
