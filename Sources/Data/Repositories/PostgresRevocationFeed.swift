import Domain
import Foundation

/// Reads the `revoked_sessions` feed that triggers append to whenever a session ends.
public struct PostgresRevocationFeed: Sendable {
    private let pool: PostgresPool

    /// Creates the feed over a pool.
    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Sessions revoked after `since` (by the database clock), with the database's
    /// current time to use as the next `since` (minus an overlap for in-flight commits).
    public func revoked(since: Date) async throws -> (sessions: [SessionID], databaseNow: Date) {
        try await pool.withConnection { connection in
            let now: Date = try connection.query("SELECT clock_timestamp()").first!.decode(0)
            let sessions = try connection.query(
                "SELECT session_id FROM revoked_sessions WHERE revoked_at > $1", [since]
            ).map { SessionID(rawValue: try $0.decode(0)) }
            return (sessions, now)
        }
    }

    /// Deletes entries older than `before`; they can no longer match an unexpired token.
    public func prune(before: Date) async throws {
        try await pool.withConnection { connection in
            try connection.execute("DELETE FROM revoked_sessions WHERE revoked_at < $1", [before])
        }
    }
}
