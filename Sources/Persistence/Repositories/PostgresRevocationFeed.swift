import Domain
import Foundation
import PostgresDriver

/// Reads the `revoked_sessions` and `role_changes` feeds that triggers append to whenever
/// a session ends or a user's role changes, on a connection of its own: the poll must not
/// queue behind the requests whose tokens it judges (on the request pool, a saturated
/// instance applied a logout made elsewhere late).
public final class PostgresRevocationFeed: RevocationFeed {
    private let connection: DedicatedConnection

    /// A feed over its own connection to `url` (`mode` as the pool's: unnamed through PgBouncer).
    public init(url: String, mode: PostgresConnection.StatementMode = .prepared) {
        connection = DedicatedConnection(url: url, mode: mode, applicationName: "market09-revocations")
    }

    /// A feed over its own connection to the database `pool` reaches.
    public convenience init(beside pool: PostgresPool) {
        self.init(url: pool.settings.url, mode: pool.settings.statementMode)
    }

    /// Rows of transactions from `cursor` on (re-reading some is harmless), or — without a
    /// cursor — every row stamped after `horizon`. Blocking.
    public func changes(after cursor: String?, horizon: Date) throws -> RevocationFeedChanges {
        try connection.run { connection in
            // First the cursor, then the rows, each statement with its own snapshot: every
            // transaction older than the cursor had ended before the rows were read.
            let next: String = try connection.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text").single().decode(0)
            let since: SQL = cursor.map { "tx >= \($0)::xid8" } ?? "revoked_at > \(horizon)"
            let sessions = try connection.query("SELECT session_id FROM revoked_sessions WHERE \(since)")
                .map { SessionID(rawValue: try $0.decode(0)) }
            let roleSince: SQL = cursor.map { "tx >= \($0)::xid8" } ?? "changed_at > \(horizon)"
            let roles = try connection.query("SELECT user_id, role, id FROM role_changes WHERE \(roleSince)")
                .compactMap { row -> (user: UserID, role: Role, sequence: Int)? in
                    guard let role = Role(rawValue: try row.decode(1)) else { return nil }
                    return (UserID(rawValue: try row.decode(0)), role, try row.decode(2))
                }
            return RevocationFeedChanges(sessions: sessions, roles: roles, cursor: next)
        }
    }

    public func close() {
        connection.close()
    }
}
