import Foundation

/// What the revocation feed reported since a cursor.
public struct RevocationFeedChanges: Sendable {
    /// Sessions that ended.
    public let sessions: [SessionID]
    /// Users whose role changed, with the new role and the change's sequence number
    /// (later changes of a user have larger ones; rows may be read again).
    public let roles: [(user: UserID, role: Role, sequence: Int)]
    /// Where the next read starts: the oldest transaction still running when this read
    /// began, so rows its transactions commit later are read next time.
    public let cursor: String

    public init(sessions: [SessionID], roles: [(user: UserID, role: Role, sequence: Int)], cursor: String) {
        self.sessions = sessions
        self.roles = roles
        self.cursor = cursor
    }
}

/// The sessions that ended and the roles that changed, as every instance must learn them:
/// `SessionRevocations` polls it so a revoked token stops working everywhere at once.
///
/// Blocking, on purpose: the poll runs on a thread of its own with a connection of its own,
/// so it never waits behind the requests whose tokens it judges.
public protocol RevocationFeed: Sendable {
    /// Changes from `cursor` on (re-reading some is harmless), or — without a cursor —
    /// every change stamped after `horizon`. Blocks the calling thread.
    func changes(after cursor: String?, horizon: Date) throws -> RevocationFeedChanges
    /// Releases the feed's connection.
    func close()
}
