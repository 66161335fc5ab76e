import Foundation
import PostgresDriver

/// Deletes anonymous users nobody has used for a while: created before the cutoff and
/// without a live session refreshed since. Deletes in small batches, each its own short
/// transaction that skips rows other transactions hold, so live traffic never waits on
/// the cleanup.
public struct PostgresAnonymousUserPruner: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    private static func stale(_ cutoff: Date) -> SQL {
        """
        u.is_anonymous AND u.created_at < \(cutoff)
        AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.refreshed_at >= \(cutoff))
        """
    }

    /// How many users ``prune(inactiveSince:batchSize:)`` would delete now.
    public func count(inactiveSince cutoff: Date) async throws -> Int {
        try await pool.withConnection { connection in
            try connection.query("SELECT count(*) FROM users u WHERE \(Self.stale(cutoff))").single().decode(0)
        }
    }

    /// Deletes the stale anonymous users; returns how many and in how many batches.
    /// `progress` hears the running total after each batch.
    public func prune(inactiveSince cutoff: Date, batchSize: Int = 500,
                      progress: (Int) -> Void = { _ in }) async throws -> (deleted: Int, batches: Int) {
        var deleted = 0
        var batches = 0
        while true {
            let removed = try await pool.transaction { connection in
                try connection.execute("""
                    DELETE FROM users WHERE id IN (
                        SELECT u.id FROM users u WHERE \(Self.stale(cutoff))
                        ORDER BY u.created_at LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
                    """)
            }
            deleted += removed
            batches += 1
            progress(deleted)
            if removed < batchSize { return (deleted, batches) }
        }
    }
}
