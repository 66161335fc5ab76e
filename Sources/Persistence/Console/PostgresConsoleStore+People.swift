import Domain
import Foundation
import PostgresDriver

/// Influencers, accounts, influencer requests and service keys in the console.
extension PostgresConsoleStore {
    private static let influencerColumns: SQL = """
        i.id, i.username, i.full_name, i.biography, i.followers_count, i.category_id, i.external_url, i.profile_pic_url,
        (SELECT count(*)::int FROM posts p WHERE p.influencer_id = i.id), i.hidden_at
        """

    private static func decodeInfluencer(_ row: PostgresRow) throws -> ConsoleInfluencer {
        ConsoleInfluencer(id: InfluencerID(rawValue: try row.decode(0)), username: try row.decode(1), fullName: try row.decode(2),
                          biography: try row.decode(3), followersCount: try row.decode(4),
                          category: (try row.decode(5, as: String?.self)).map(CategoryID.init(rawValue:)), externalURL: try row.decode(6),
                          profilePicURL: try row.decode(7), postCount: try row.decode(8), hiddenAt: try row.decode(9))
    }

    private static func influencerRow(_ id: InfluencerID) -> SQL {
        "SELECT id, username, full_name, biography, followers_count, external_url, hidden_at FROM influencers WHERE id = \(id.rawValue)"
    }

    public func influencers(search: String?, hidden: Bool, offset: Int, limit: Int) async throws -> Page<ConsoleInfluencer> {
        try await pool.withConnection { connection in
            var conditions: [SQL] = [hidden ? "i.hidden_at IS NOT NULL" : "i.hidden_at IS NULL"]
            if let search {
                let pattern = "%" + FeedSQL.escapeLike(search.lowercased()) + "%"
                conditions.append("(lower(i.username) LIKE \(pattern) OR lower(i.full_name) LIKE \(pattern))")
            }
            let filter = SQLConditions(all: conditions).whereClause
            let items = try connection.query("""
                SELECT \(Self.influencerColumns) FROM influencers i \(filter) ORDER BY i.followers_count DESC, i.id OFFSET \(offset) LIMIT \(limit)
                """).map(Self.decodeInfluencer)
            let total: Int = try connection.query("SELECT count(*)::int FROM influencers i \(filter)").single().decode(0)
            return Page(items: items, total: total)
        }
    }

    public func influencer(id: InfluencerID) async throws -> ConsoleInfluencer? {
        try await pool.withConnection { connection in
            try connection.query("SELECT \(Self.influencerColumns) FROM influencers i WHERE i.id = \(id.rawValue)").first.map(Self.decodeInfluencer)
        }
    }

    public func editInfluencer(id: InfluencerID, changes: InfluencerChanges, by actor: AdminActor) async throws -> Bool {
        try await PostgresConsoleStore.mappingConstraintErrors {
            try await pool.transaction { connection in
                try AuditTrail.audited(actor, action: "influencer.edit", target: "influencer \(id)", row: Self.influencerRow(id), connection) {
                    // An empty text clears the field.
                    let changed = try connection.execute("""
                        UPDATE influencers SET full_name = CASE WHEN \(changes.fullName)::text IS NULL THEN full_name ELSE nullif(\(changes.fullName)::text, '') END,
                            biography = CASE WHEN \(changes.biography)::text IS NULL THEN biography ELSE nullif(\(changes.biography)::text, '') END,
                            external_url = CASE WHEN \(changes.externalURL)::text IS NULL THEN external_url ELSE nullif(\(changes.externalURL)::text, '') END,
                            followers_count = COALESCE(\(changes.followersCount)::integer, followers_count)
                        WHERE id = \(id.rawValue)
                        """)
                    return (changed == 1, changed == 1)
                }
            }
        }
    }

    public func setHidden(influencer id: InfluencerID, hidden: Bool, by actor: AdminActor) async throws -> Bool {
        try await PostgresConsoleStore.mappingConstraintErrors {
            try await pool.transaction { connection in
                try AuditTrail.audited(actor, action: hidden ? "influencer.hide" : "influencer.show", target: "influencer \(id)",
                                       row: Self.influencerRow(id), connection) {
                    let changed = try connection.execute("""
                        UPDATE influencers SET hidden_at = \(hidden ? "now" : nil)::timestamptz
                        WHERE id = \(id.rawValue) AND (hidden_at IS NULL) = \(hidden)
                        """) == 1
                    guard changed else { return (false, false) }
                    if hidden {
                        try connection.execute("SELECT post_hide(p.id, true) FROM (SELECT id FROM posts WHERE influencer_id = \(id.rawValue)) p")
                    } else {
                        try connection.execute("SELECT post_show(h.id) FROM (SELECT id FROM hidden_posts WHERE influencer_id = \(id.rawValue) AND with_influencer) h")
                    }
                    return (true, true)
                }
            }
        }
    }

    private static let userColumns: SQL = """
        u.id, (SELECT email FROM identities WHERE user_id = u.id AND email IS NOT NULL ORDER BY created_at LIMIT 1), u.nickname, u.role,
        u.is_anonymous, u.created_at,
        (SELECT count(*)::int FROM sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL),
        (SELECT count(*)::int FROM likes l WHERE l.user_id = u.id),
        (SELECT count(*)::int FROM posts p WHERE p.submitted_by = u.id) + (SELECT count(*)::int FROM hidden_posts h WHERE h.submitted_by = u.id),
        (SELECT count(*)::int FROM influencer_requests r WHERE r.requested_by = u.id)
        """

    private static func decodeUser(_ row: PostgresRow) throws -> ConsoleUser {
        ConsoleUser(id: UserID(rawValue: try row.decode(0)), email: try row.decode(1), nickname: try row.decode(2),
                    role: Role(rawValue: try row.decode(3)) ?? .user, isAnonymous: try row.decode(4), createdAt: try row.decode(5),
                    liveSessions: try row.decode(6), likes: try row.decode(7), posts: try row.decode(8), requests: try row.decode(9))
    }

    private static func userRow(_ id: UserID) -> SQL {
        """
        SELECT u.id, u.role, u.nickname, u.is_anonymous, (SELECT array_agg(email) FROM identities WHERE user_id = u.id) AS emails
        FROM users u WHERE u.id = \(id.rawValue)
        """
    }

    /// Permanent accounts only: anonymous ones (millions, with nothing to administer) are
    /// found by id.
    public func users(search: String?, offset: Int, limit: Int) async throws -> Page<ConsoleUser> {
        try await pool.withConnection { connection in
            var filter: SQL = "WHERE NOT u.is_anonymous"
            if let search, let id = UUID(uuidString: search) {
                filter = "WHERE u.id = \(id)"
            } else if let search {
                let pattern = "%" + FeedSQL.escapeLike(search.lowercased()) + "%"
                filter = """
                    WHERE NOT u.is_anonymous AND (lower(u.nickname) LIKE \(pattern)
                      OR u.id IN (SELECT user_id FROM identities WHERE lower(email) LIKE \(pattern)))
                    """
            }
            let items = try connection.query("SELECT \(Self.userColumns) FROM users u \(filter) ORDER BY u.created_at DESC, u.id OFFSET \(offset) LIMIT \(limit)")
                .map(Self.decodeUser)
            let total: Int = try connection.query("SELECT count(*)::int FROM users u \(filter)").single().decode(0)
            return Page(items: items, total: total)
        }
    }

    public func user(id: UserID) async throws -> ConsoleUser? {
        try await pool.withConnection { connection in
            try connection.query("SELECT \(Self.userColumns) FROM users u WHERE u.id = \(id.rawValue)").first.map(Self.decodeUser)
        }
    }

    public func sessions(of user: UserID, limit: Int) async throws -> [AccountSession] {
        try await pool.statement { connection in
            try connection.query("""
                SELECT created_at, refreshed_at, revoked_at, revoked_reason FROM sessions WHERE user_id = \(user.rawValue)
                ORDER BY revoked_at IS NOT NULL, refreshed_at DESC LIMIT \(limit)
                """).map { AccountSession(createdAt: try $0.decode(0), refreshedAt: try $0.decode(1), revokedAt: try $0.decode(2), revokedReason: try $0.decode(3)) }
        }
    }

    /// Refuses a change that would leave no admin; the admins' rows are locked first, so
    /// two operators demoting each other at once cannot both succeed.
    private static func keepingAnAdmin(_ removed: UserID, _ connection: PostgresConnection) throws {
        let admins = try connection.query("SELECT id FROM users WHERE role = 'admin' ORDER BY id FOR UPDATE").map { try $0.decode(0, as: UUID.self) }
        if admins == [removed.rawValue] { throw DomainError.forbidden("This is the last admin: make another account an admin first.") }
    }

    public func setRole(_ role: Role, user: String, by actor: AdminActor) async throws -> UserID? {
        try await pool.transaction { connection in
            let byID = UUID(uuidString: user)
            guard let found = try connection.query("""
                SELECT id FROM users WHERE NOT is_anonymous
                  AND (id = \(byID)::uuid OR id IN (SELECT user_id FROM identities WHERE provider = 'email' AND subject = lower(\(user))))
                """).first else { return nil }
            let id = UserID(rawValue: try found.decode(0))
            if role != .admin { try Self.keepingAnAdmin(id, connection) }
            try AuditTrail.audited(actor, action: "user.role", target: "user \(id)", row: Self.userRow(id), connection) {
                ((), try connection.execute("UPDATE users SET role = \(role.rawValue), updated_at = now() WHERE id = \(id.rawValue) AND role <> \(role.rawValue)") == 1)
            }
            return id
        }
    }

    public func signOutEverywhere(user: UserID, by actor: AdminActor) async throws -> Int {
        try await pool.transaction { connection in
            let ended = try connection.execute("""
                UPDATE sessions SET revoked_at = now(), revoked_reason = 'logout' WHERE user_id = \(user.rawValue) AND revoked_at IS NULL
                """) + (try connection.execute("DELETE FROM console_sessions WHERE user_id = \(user.rawValue)"))
            try AuditTrail.record(actor, action: "user.sign_out", target: "user \(user)", before: nil, after: "{\"sessions_ended\": \(ended)}", connection)
            return ended
        }
    }

    public func deleteUser(_ user: UserID, by actor: AdminActor) async throws -> Bool {
        try await pool.transaction { connection in
            guard let before = try AuditTrail.snapshot(Self.userRow(user), connection) else { return false }
            try Self.keepingAnAdmin(user, connection)
            try connection.execute("DELETE FROM users WHERE id = \(user.rawValue)")
            try AuditTrail.record(actor, action: "user.delete", target: "user \(user)", before: before, after: nil, connection)
            return true
        }
    }

    public func requests(status: InfluencerRequest.Status?, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        try await PostgresInfluencerRequestRepository(pool: pool).requests(status: status, offset: offset, limit: limit)
    }

    private static func requestRow(_ id: Int) -> SQL {
        "SELECT id, username, status, reason, influencer_id, attempts FROM influencer_requests WHERE id = \(id)"
    }

    private func auditedRequest(_ id: Int, _ action: String, _ actor: AdminActor,
                                _ change: @escaping @Sendable (PostgresConnection) throws -> InfluencerRequest?) async throws -> InfluencerRequest? {
        try await PostgresConsoleStore.mappingConstraintErrors {
            try await pool.transaction { connection in
                try AuditTrail.audited(actor, action: action, target: "influencer_request \(id)", row: Self.requestRow(id), connection) {
                    let changed = try change(connection)
                    return (changed, changed != nil)
                }
            }
        }
    }

    public func approveRequest(id: Int, profile: InstagramProfile, by actor: AdminActor) async throws -> InfluencerRequest? {
        try await auditedRequest(id, "influencer_request.approve", actor) { try PostgresInfluencerRequestRepository.approve(id: id, profile: profile, $0) }
    }

    public func rejectRequest(id: Int, reason: InfluencerRequest.Failure, by actor: AdminActor) async throws -> InfluencerRequest? {
        try await auditedRequest(id, "influencer_request.reject", actor) { try PostgresInfluencerRequestRepository.fail(id: id, reason: reason, $0) }
    }

    public func retryRequest(id: Int, by actor: AdminActor) async throws -> InfluencerRequest? {
        try await auditedRequest(id, "influencer_request.retry", actor) { try PostgresInfluencerRequestRepository.reopen(id: id, $0) }
    }

    public func keys() async throws -> [ServiceKey] {
        try await PostgresServiceKeyRepository(pool: pool).list()
    }

    public func createKey(name: String, scope: ServiceScope, text: String, by actor: AdminActor) async throws -> ServiceKey {
        try await pool.transaction { connection in
            let key = try PostgresServiceKeyRepository.create(name: name, scope: scope, text: text, connection)
            try AuditTrail.record(actor, action: "api_key.create", target: "api_key \(key.id)", before: nil,
                                  after: try AuditTrail.snapshot("SELECT id, name, scope FROM service_api_keys WHERE id = \(key.id)", connection), connection)
            return key
        }
    }

    public func revokeKey(nameOrID: String, by actor: AdminActor) async throws -> ServiceKey? {
        try await pool.transaction { connection in
            guard let key = try PostgresServiceKeyRepository.revoke(nameOrID: nameOrID, at: Date(), connection) else { return nil }
            try AuditTrail.record(actor, action: "api_key.revoke", target: "api_key \(key.id)", before: nil,
                                  after: try AuditTrail.snapshot("SELECT id, name, scope, revoked_at FROM service_api_keys WHERE id = \(key.id)", connection),
                                  connection)
            return key
        }
    }
}
