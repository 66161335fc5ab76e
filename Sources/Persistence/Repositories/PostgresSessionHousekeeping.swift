import Foundation
import PostgresDriver

/// Deletes auth bookkeeping that can no longer matter, on one instance at a time.
///
/// - `revoked_sessions` and `role_changes` rows older than `horizon` (a token lifetime
///   and a margin ago): every access token they could concern has expired.
/// - Refresh tokens of sessions revoked before `horizon`: the session refuses them anyway.
/// - Spent refresh tokens used more than `spentTokenRetention` ago. A spent token's only
///   use is theft detection (its reuse revokes the session); after the retention a reuse
///   is answered as an unknown token instead. Without this, every session gained a row
///   per refresh forever.
///
/// Each pass is one transaction that first takes a transaction-level advisory lock with
/// `pg_try_advisory_xact_lock`: a second instance finds it taken and skips its pass, and
/// the lock ends with the transaction, so an instance that dies holds nothing. A pass
/// deletes at most `batch` rows per table; the job runs again a minute later.
public struct PostgresSessionHousekeeping: Sendable {
    /// Rows deleted by one pass.
    public struct Report: Sendable, Equatable {
        /// Revoked-session rows.
        public var revocations = 0
        /// Role-change rows.
        public var roleChanges = 0
        /// Refresh tokens (of revoked sessions, and long-spent ones).
        public var refreshTokens = 0

        /// A report of deleted row counts.
        public init(revocations: Int = 0, roleChanges: Int = 0, refreshTokens: Int = 0) {
            self.revocations = revocations
            self.roleChanges = roleChanges
            self.refreshTokens = refreshTokens
        }
    }

    /// The advisory lock key of this job ("m09-auth-hk").
    static let lockKey = 0x6D30_392D_6175_7468

    private let pool: PostgresPool
    private let batch: Int

    public init(pool: PostgresPool, batch: Int = 10_000) {
        self.pool = pool
        self.batch = batch
    }

    /// One pass; `nil` when another instance holds the job's lock.
    public func prune(horizon: Date, spentTokenRetention: TimeInterval, now: Date) async throws -> Report? {
        let batch = batch
        return try await pool.transaction { connection in
            try connection.execute("SET LOCAL statement_timeout = 0")
            let locked: Bool = try connection.query("SELECT pg_try_advisory_xact_lock(\(Self.lockKey))").single().decode(0)
            guard locked else { return nil }
            var report = Report()
            report.revocations = try connection.execute(
                "DELETE FROM revoked_sessions WHERE id IN (SELECT id FROM revoked_sessions WHERE revoked_at < \(horizon) LIMIT \(batch))")
            report.roleChanges = try connection.execute(
                "DELETE FROM role_changes WHERE id IN (SELECT id FROM role_changes WHERE changed_at < \(horizon) LIMIT \(batch))")
            report.refreshTokens = try connection.execute("""
                DELETE FROM refresh_tokens WHERE id IN (
                    (SELECT t.id FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE s.revoked_at < \(horizon) LIMIT \(batch))
                    UNION ALL
                    (SELECT id FROM refresh_tokens WHERE used_at < \(now.addingTimeInterval(-spentTokenRetention)) LIMIT \(batch)))
                """)
            return report
        }
    }
}
