import Domain
import Foundation
import PostgresDriver

/// Operator queries and changes behind `market09 admin`.
public struct PostgresAdministration: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Admins with their first email, oldest first.
    public func admins() async throws -> [(id: UUID, email: String?, createdAt: Date)] {
        try await pool.withConnection { connection in
            try connection.query("""
                SELECT u.id, (SELECT email FROM identities WHERE user_id = u.id ORDER BY created_at LIMIT 1), u.created_at
                FROM users u WHERE u.role = 'admin' ORDER BY u.created_at, u.id
                """).map { (try $0.decode(0), try $0.decode(1), try $0.decode(2)) }
        }
    }

    /// Counts for `admin stats`, as `(label, value)` lines in a fixed order.
    public func stats(now: Date) async throws -> [(String, Int)] {
        try await pool.withConnection { connection in
            var lines: [(String, Int)] = []
            let users = try connection.query("SELECT count(*) FILTER (WHERE is_anonymous)::int, count(*) FILTER (WHERE NOT is_anonymous)::int, count(*) FILTER (WHERE role = 'admin')::int FROM users").single()
            lines += [("users.anonymous", try users.decode(0)), ("users.permanent", try users.decode(1)), ("users.admins", try users.decode(2))]
            lines.append(("sessions.active", try connection.query("SELECT count(*)::int FROM sessions WHERE revoked_at IS NULL").single().decode(0)))
            lines.append(("influencers", try connection.query("SELECT count(*)::int FROM influencers").single().decode(0)))
            lines.append(("likes", try connection.query("SELECT count(*)::int FROM likes").single().decode(0)))
            for row in try connection.query("""
                SELECT c.id,
                       count(p.id)::int,
                       count(p.id) FILTER (WHERE p.group_buying_start > \(now))::int,
                       count(p.id) FILTER (WHERE p.group_buying_start <= \(now) AND p.group_buying_end >= \(now))::int,
                       count(p.id) FILTER (WHERE p.group_buying_end < \(now))::int
                FROM categories c LEFT JOIN posts p ON p.category_id = c.id GROUP BY c.id, c.sort_order ORDER BY c.sort_order
                """) {
                let category: String = try row.decode(0)
                lines += [("posts.\(category)", try row.decode(1)), ("posts.\(category).upcoming", try row.decode(2)),
                          ("posts.\(category).open", try row.decode(3)), ("posts.\(category).closed", try row.decode(4))]
            }
            return lines
        }
    }
}
