import Foundation
import PostgresDriver

/// The tables of a 09Market Supabase project's export: each table's rows as column → text
/// (a column absent or empty is `NULL`), as its CSV exports hold them.
public struct SupabaseExport: Sendable {
    /// The columns read from each table; others in the files are ignored.
    public static let columns: KeyValuePairs<String, [String]> = [
        "users": ["id", "nickname", "profile_url", "provider", "created_at"],
        "identities": ["user_id", "provider", "provider_id", "email", "created_at"],
        "influencers": ["id", "username", "full_name", "biography", "profile_pic_url", "followers_count", "external_url", "external_url_title", "category",
                        "last_synced_at", "created_at"],
        "posts": ["id", "influencer_id", "post_url", "post_type", "caption", "display_url", "hashtags", "group_buying_start", "group_buying_end",
                  "product_name", "group_buying_url", "price", "category", "submitted_by", "posted_at", "created_at"],
        "likes": ["user_id", "post_id", "created_at"],
        "follows": ["user_id", "influencer_id", "created_at"],
    ]

    public var tables: [String: [[String: String]]]

    public init(tables: [String: [[String: String]]]) {
        self.tables = tables
    }
}

/// What an import did to one table: rows read, rows inserted (the rest were invalid for
/// this schema, referred to something not imported, or were there already).
public struct SupabaseImportCount: Sendable, Equatable {
    public let table: String
    public let read: Int
    public let inserted: Int
}

/// An identity of the export that was not linked: its user id belongs to an account that
/// existed before the import.
public struct UnlinkedIdentity: Sendable, Equatable {
    public let userID: String
    public let provider: String
}

/// Imports a Supabase export in one transaction: users with their Google and Apple
/// identities (same user ids, so they sign in to the same accounts), influencers and posts
/// under new ids with their text ids kept in `supabase_*_ids` (migration 0023), then likes
/// and follows through those. Every row is checked against this schema's rules in SQL;
/// rows that break one are left out and counted, never half-written. Importing the same
/// export again inserts nothing.
public struct PostgresSupabaseImporter: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Imports `export`; the counts per table, and the Google or Apple identities left
    /// unlinked because their user id names an account that was here before the import.
    public func run(_ export: SupabaseExport) async throws -> (counts: [SupabaseImportCount], unlinked: [UnlinkedIdentity]) {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                _ = try connection.execute("SET LOCAL statement_timeout = 0")
                try connection.execute(script: Self.helpers)
                try connection.execute(script: "CREATE TEMP TABLE s_created_users (id uuid PRIMARY KEY) ON COMMIT DROP")
                var read: [String: Int] = [:]
                for (table, columns) in SupabaseExport.columns {
                    try connection.execute(script: "CREATE TEMP TABLE s_\(unescaped: table) (\(unescaped: columns.map { "\($0) text" }.joined(separator: ", "))) ON COMMIT DROP")
                    // A NUL cannot be staged (PostgreSQL text holds none): such a row is left out
                    // and counted as one the schema refused, not a failed import.
                    let all = export.tables[table] ?? []
                    let rows = all.filter { row in !row.values.contains { $0.utf8.contains(0) } }
                    read[table] = all.count
                    var index = 0
                    _ = try connection.copy(into: "s_\(table)", columns: columns) {
                        guard index < rows.count else { return nil }
                        var chunk = ""
                        while index < rows.count && chunk.utf8.count < 64_000 {
                            chunk += columns.map { PostgresConnection.copyEscape(rows[index][$0].flatMap { $0.isEmpty ? nil : $0 }) }
                                .joined(separator: "\t") + "\n"
                            index += 1
                        }
                        return chunk
                    }
                }
                let counts = try SupabaseImportSQL.statements.map { table, source, sql in
                    // A statement that writes through CTEs counts its rows in a SELECT.
                    let inserted = sql.rendered.text.hasPrefix("WITH") ? try connection.query(sql).single().decode(0, as: Int.self) : try connection.execute(sql)
                    return SupabaseImportCount(table: table, read: read[source] ?? 0, inserted: inserted)
                }
                // Not linked, and not linked before (a rerun finds its own identities there).
                let unlinked = try connection.query("""
                    SELECT DISTINCT pg_temp.id(i.user_id)::text, i.provider FROM s_identities i
                    WHERE i.provider IN ('google', 'apple') AND pg_temp.id(i.user_id) IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM s_created_users c WHERE c.id = pg_temp.id(i.user_id))
                      AND NOT EXISTS (SELECT 1 FROM identities d WHERE d.provider = i.provider AND d.subject = i.provider_id)
                      AND EXISTS (SELECT 1 FROM users u WHERE u.id = pg_temp.id(i.user_id))
                    ORDER BY 1, 2
                    """).map { UnlinkedIdentity(userID: try $0.decode(0), provider: try $0.decode(1)) }
                return (counts, unlinked)
            }
        }
    }

    /// Lenient casts for exported text: `NULL` instead of an error for a value that is not one.
    /// `OR REPLACE`: temporary functions, unlike the tables, outlive the transaction in the
    /// pooled session, and a second import on the same connection failed with 42723.
    private static let helpers: SQL = """
        CREATE OR REPLACE FUNCTION pg_temp.ts(value text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE AS $$
        BEGIN RETURN value::timestamptz; EXCEPTION WHEN others THEN RETURN NULL; END $$;
        CREATE OR REPLACE FUNCTION pg_temp.id(value text) RETURNS uuid LANGUAGE plpgsql IMMUTABLE AS $$
        BEGIN RETURN value::uuid; EXCEPTION WHEN others THEN RETURN NULL; END $$;
        CREATE OR REPLACE FUNCTION pg_temp.url(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN value ~ '^https?://' AND char_length(value) <= 2048 THEN value END $$;
        CREATE OR REPLACE FUNCTION pg_temp.tags(value text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
        DECLARE raw text[];
        BEGIN
            IF value IS NULL THEN RETURN '{}'; END IF;
            BEGIN
                raw := CASE WHEN left(value, 1) = '[' THEN ARRAY(SELECT jsonb_array_elements_text(value::jsonb)) ELSE value::text[] END;
            EXCEPTION WHEN others THEN RETURN '{}';
            END;
            RETURN COALESCE((SELECT array_agg(tag ORDER BY first) FROM (
                SELECT tag, min(n) AS first FROM (SELECT lower(regexp_replace(btrim(t), '^#', '')) AS tag, n FROM unnest(raw) WITH ORDINALITY AS u(t, n)) x
                WHERE tag ~ '^[a-z0-9_가-힣ㄱ-ㅎㅏ-ㅣ]{1,100}$' GROUP BY tag ORDER BY min(n) LIMIT 30) kept), '{}');
        END $$;
        CREATE OR REPLACE FUNCTION pg_temp.category(value text) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT id FROM categories WHERE id = value OR name = value $$;
        """
}
