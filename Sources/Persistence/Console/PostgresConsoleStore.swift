import Domain
import Foundation
import PostgresDriver

/// ``ConsoleStore`` over PostgreSQL: the console's lists read the primary (an operator
/// sees what they just changed), and each change and its audit entry commit together.
public struct PostgresConsoleStore: ConsoleStore {
    let pool: PostgresPool
    /// The overview's week of hourly counts, kept a minute (see ``overview(now:)``).
    let series = SeriesCache()

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
}
