import Domain
import Foundation
import PostgresDriver

/// ``ConsoleStore`` over PostgreSQL: the console's lists read the primary (an operator
/// sees what they just changed), and each change and its audit entry commit together.
public struct PostgresConsoleStore: ConsoleStore {
    let pool: PostgresPool
    /// The media directory's disk use is read by the caller; uploads' bytes come from here.
    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func createSession(tokenHash: [UInt8], user: UserID, csrfToken: String, address: String?, now: Date) async throws {
        try await pool.transaction { connection in
            // A new token at every sign-in; the admin's sessions idle for a day are cleared.
            try connection.execute("DELETE FROM console_sessions WHERE user_id = \(user.rawValue) AND last_seen_at < \(now.addingTimeInterval(-86_400))")
            try connection.execute("""
                INSERT INTO console_sessions (token_hash, user_id, csrf_token, address, created_at, last_seen_at)
                VALUES (\(PostgresBytes(tokenHash)), \(user.rawValue), \(csrfToken), \(address.map { String($0.prefix(64)) }), \(now), \(now))
                """)
        }
    }

    public func session(tokenHash: [UInt8], idleSince: Date, now: Date) async throws -> ConsoleSession? {
        try await pool.statement { connection in
            try connection.query("""
                UPDATE console_sessions s SET last_seen_at = \(now)
                FROM users u WHERE s.token_hash = \(PostgresBytes(tokenHash)) AND s.last_seen_at > \(idleSince)
                  AND u.id = s.user_id AND u.role = 'admin'
                RETURNING s.user_id, COALESCE((SELECT email FROM identities WHERE user_id = u.id AND provider = 'email' ORDER BY created_at LIMIT 1), ''),
                          s.csrf_token
                """).first.map { ConsoleSession(userID: UserID(rawValue: try $0.decode(0)), email: try $0.decode(1), csrfToken: try $0.decode(2)) }
        }
    }

    public func endSession(tokenHash: [UInt8]) async throws {
        try await pool.statement { connection in
            try connection.execute("DELETE FROM console_sessions WHERE token_hash = \(PostgresBytes(tokenHash))")
        }
    }

    public func audit(_ query: AuditQuery) async throws -> [AuditEntry] {
        try await pool.statement { connection in
            var conditions: [SQL] = []
            if let before = query.beforeID { conditions.append("id < \(before)") }
            if let search = query.search, !search.isEmpty {
                let pattern = "%" + FeedSQL.escapeLike(search.lowercased()) + "%"
                conditions.append("(lower(actor) LIKE \(pattern) OR action LIKE \(pattern) OR lower(target) LIKE \(pattern) OR address LIKE \(pattern))")
            }
            let filter: SQL = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            return try connection.query("""
                SELECT id, at, actor, channel, address, action, target, before::text, after::text FROM admin_audit \(filter)
                ORDER BY id DESC LIMIT \(query.limit)
                """).map { row in
                AuditEntry(id: try row.decode(0), at: try row.decode(1), actor: try row.decode(2),
                           channel: AuditChannel(rawValue: try row.decode(3)) ?? .console, address: try row.decode(4),
                           action: try row.decode(5), target: try row.decode(6), before: try row.decode(7), after: try row.decode(8))
            }
        }
    }

    public func record(_ actor: AdminActor, action: String, target: String, after: String?) async throws {
        try await pool.statement { connection in try AuditTrail.record(actor, action: action, target: target, before: nil, after: after, connection) }
    }

    public func pruneAudit(before cutoff: Date) async throws -> Int {
        try await pool.statement { connection in try connection.execute("DELETE FROM admin_audit WHERE at < \(cutoff)") }
    }

    public func overview(now: Date) async throws -> ConsoleOverview {
        let dayEnd = KoreaDay(containing: now).start.addingTimeInterval(86_400)
        let weekStart = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600 - 167 * 3600)
        return try await pool.withConnection { connection in
            let categories = try connection.query("""
                SELECT c.id, c.name,
                       (SELECT count(*)::int FROM posts p WHERE p.category_id = c.id AND p.group_buying_start <= \(now) AND p.group_buying_end >= \(now)),
                       (SELECT count(*)::int FROM posts p WHERE p.category_id = c.id AND p.group_buying_start > \(now)),
                       (SELECT count(*)::int FROM posts p WHERE p.category_id = c.id AND p.group_buying_end >= \(now) AND p.group_buying_end < \(dayEnd)
                          AND p.group_buying_start <= \(now))
                FROM categories c ORDER BY c.sort_order
                """).map { row in
                CategoryActivity(category: CategoryID(rawValue: try row.decode(0)), name: try row.decode(1), openNow: try row.decode(2),
                                 upcoming: try row.decode(3), closingToday: try row.decode(4))
            }
            func hourly(_ name: String, _ source: SQL) throws -> HourlySeries {
                var counts = Array(repeating: 0, count: 168)
                for row in try connection.query("""
                    SELECT floor(extract(epoch FROM (t - \(weekStart))) / 3600)::int, count(*)::int FROM (\(source)) s(t)
                    WHERE t >= \(weekStart) GROUP BY 1
                    """) {
                    let hour: Int = try row.decode(0)
                    if counts.indices.contains(hour) { counts[hour] = try row.decode(1) }
                }
                return HourlySeries(name: name, start: weekStart, counts: counts)
            }
            let series = [
                try hourly("Sign-ups", "SELECT created_at FROM users WHERE NOT is_anonymous AND created_at >= \(weekStart)"),
                try hourly("Likes", "SELECT created_at FROM likes WHERE created_at >= \(weekStart)"),
                try hourly("Ingested posts", "SELECT created_at FROM posts WHERE source = 'ingest' AND created_at >= \(weekStart)"),
            ]
            let counts = try connection.query("""
                SELECT (SELECT count(*)::int FROM influencer_requests WHERE status = 'processing'),
                       (SELECT count(*)::int FROM hidden_posts),
                       (SELECT COALESCE(sum(bytes), 0)::bigint FROM uploads),
                       (SELECT count(*)::int FROM users WHERE role = 'admin')
                """).single()
            let keys = try connection.query("SELECT \(unescaped: PostgresServiceKeyRepository.columns) FROM service_api_keys WHERE revoked_at IS NULL ORDER BY id")
                .map(PostgresServiceKeyRepository.decode)
            return ConsoleOverview(categories: categories, series: series, pendingRequests: try counts.decode(0), hiddenPosts: try counts.decode(1),
                                   keys: keys, storedMediaBytes: try counts.decode(2), admins: try counts.decode(3))
        }
    }
}
