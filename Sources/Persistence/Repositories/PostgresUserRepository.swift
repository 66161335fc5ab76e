import Domain
import Foundation
import PostgresDriver

/// ``UserRepository`` over `users` and `identities`.
public struct PostgresUserRepository: UserRepository {
    private var pool: ScopedPool

    public init(pool: PostgresPool) {
        self.pool = ScopedPool(pool)
    }

    public func scoped(_ scope: RequestScope) -> PostgresUserRepository {
        var copy = self
        copy.pool = pool.scoped(scope)
        return copy
    }

    public func createAnonymous(id: UserID, now: Date) async throws -> User {
        try await pool.withConnection { connection in
            try connection.execute("INSERT INTO users (id, is_anonymous, created_at, updated_at) VALUES (\(id.rawValue), true, \(now), \(now))")
            return try Self.load(id, connection)
        }
    }

    public func createPermanent(id: UserID, identity: NewIdentity, nickname: String?, now: Date) async throws -> User {
        try await Self.mappingIdentityConflicts(identity) {
            try await pool.transaction { connection in
                try connection.execute("""
                    INSERT INTO users (id, is_anonymous, nickname, profile_url, created_at, updated_at)
                    VALUES (\(id.rawValue), false, \(nickname ?? identity.profile.nickname), \(identity.profile.picture), \(now), \(now))
                    """)
                try Self.insert(identity, for: id, now: now, connection)
                return try Self.load(id, connection)
            }
        }
    }

    public func user(id: UserID) async throws -> User? {
        try await pool.read(Self.find(id), decode: Self.found)
    }

    public func identity(provider: IdentityProvider, subject: String) async throws -> StoredIdentity? {
        try await pool.withConnection { connection in
            try connection.query("SELECT user_id, password_hash FROM identities WHERE provider = \(provider.rawValue) AND subject = \(subject)")
                .first.map { StoredIdentity(userID: UserID(rawValue: try $0.decode(0)), passwordHash: try $0.decode(1)) }
        }
    }

    public func upgrade(id: UserID, identity: NewIdentity, now: Date) async throws -> User {
        try await Self.mappingIdentityConflicts(identity, emailTaken: AuthError.identityExists) {
            try await pool.transaction { connection in
                guard let row = try connection.query("SELECT is_anonymous FROM users WHERE id = \(id.rawValue) FOR UPDATE").first else {
                    throw AuthError.sessionRevoked
                }
                guard try row.decode(0, as: Bool.self) else { throw AuthError.alreadyPermanent }
                try Self.insert(identity, for: id, now: now, connection)
                try connection.execute("""
                    UPDATE users SET is_anonymous = false, nickname = COALESCE(nickname, \(identity.profile.nickname)),
                                     profile_url = COALESCE(profile_url, \(identity.profile.picture)), updated_at = \(now)
                    WHERE id = \(id.rawValue)
                    """)
                return try Self.load(id, connection)
            }
        }
    }

    public func merge(anonymous: UserID, into target: UserID) async throws {
        try await pool.transaction { connection in
            guard try connection.query("SELECT 1 FROM users WHERE id = \(anonymous.rawValue) AND is_anonymous FOR UPDATE").count == 1 else {
                throw AuthError.alreadyPermanent
            }
            try connection.execute(
                "INSERT INTO likes (user_id, post_id, created_at) SELECT \(target.rawValue), post_id, created_at FROM likes WHERE user_id = \(anonymous.rawValue) ON CONFLICT DO NOTHING")
            try connection.execute("UPDATE posts SET submitted_by = \(target.rawValue) WHERE submitted_by = \(anonymous.rawValue)")
            try connection.execute("DELETE FROM users WHERE id = \(anonymous.rawValue)")
        }
    }

    public func updateProfile(id: UserID, nickname: String?, profileURL: String?, now: Date) async throws -> User {
        try await pool.transaction { connection in
            let updated = try connection.query("""
                UPDATE users SET nickname = COALESCE(\(nickname), nickname), profile_url = COALESCE(\(profileURL), profile_url), updated_at = \(now)
                WHERE id = \(id.rawValue) AND NOT is_anonymous
                """)
            guard updated.affectedRows == 1 else { throw AuthError.sessionRevoked }
            return try Self.load(id, connection)
        }
    }

    public func delete(id: UserID) async throws {
        try await pool.transaction { connection in
            try connection.execute("DELETE FROM users WHERE id = \(id.rawValue)")
        }
    }

    public func recordSignIn(provider: IdentityProvider, subject: String, profile: IdentityProfile?, now: Date) async throws {
        guard let profile else {
            try await pool.withConnection { connection in
                try connection.execute("UPDATE identities SET last_sign_in_at = \(now) WHERE provider = \(provider.rawValue) AND subject = \(subject)")
            }
            return
        }
        // One statement: the identity keeps what its provider says now, and an empty
        // nickname or picture of its user is filled (a user's own values are never replaced).
        try await pool.statement { connection in
            try connection.execute("""
                WITH identity AS (
                    UPDATE identities SET last_sign_in_at = \(now), name = \(profile.name), picture = \(profile.picture),
                           updated_at = CASE WHEN name IS DISTINCT FROM \(profile.name) OR picture IS DISTINCT FROM \(profile.picture)
                                             THEN \(now) ELSE updated_at END
                    WHERE provider = \(provider.rawValue) AND subject = \(subject) RETURNING user_id)
                UPDATE users u SET nickname = COALESCE(u.nickname, \(profile.nickname)), profile_url = COALESCE(u.profile_url, \(profile.picture))
                FROM identity WHERE u.id = identity.user_id AND NOT u.is_anonymous AND (u.nickname IS NULL OR u.profile_url IS NULL)
                """)
        }
    }

    // MARK: - Shared SQL

    /// The user `id` with its identities (the first one's email and provider as the
    /// user's), or `nil`. One statement, a row per identity (one with none): `/v1/me` made
    /// two round trips before, the user and then its identities, and PostgreSQL's share of
    /// a request is per statement (pgbench on this box: 35.8 k statements/s one at a time).
    static func find(_ id: UserID, _ connection: PostgresConnection) throws -> User? {
        try found(connection.query(find(id)))
    }

    /// ``find(_:_:)``'s statement, for a pipelined read too.
    static func find(_ id: UserID) -> SQL {
        """
        SELECT u.id, u.is_anonymous, u.role, u.nickname, u.profile_url, u.created_at,
               i.id, i.provider, i.subject, i.email, i.name, i.picture, i.created_at, i.last_sign_in_at, i.updated_at
        FROM users u LEFT JOIN identities i ON i.user_id = u.id
        WHERE u.id = \(id.rawValue)
        ORDER BY i.created_at, i.id
        """
    }

    /// The user of ``find(_:)``'s rows, or `nil`.
    static func found(_ rows: PostgresRows) throws -> User? {
        guard let row = rows.first else { return nil }
        let identities = try rows.compactMap { row -> LinkedIdentity? in
            guard let identity = try row.decode(6, as: UUID?.self),
                  let provider = IdentityProvider(rawValue: try row.decode(7)) else { return nil }
            return LinkedIdentity(id: identity, provider: provider, subject: try row.decode(8), email: try row.decode(9),
                                  profile: IdentityProfile(name: try row.decode(10), picture: try row.decode(11)), createdAt: try row.decode(12),
                                  lastSignInAt: try row.decode(13), updatedAt: try row.decode(14))
        }
        return User(
            id: UserID(rawValue: try row.decode(0)), isAnonymous: try row.decode(1),
            role: Role(rawValue: try row.decode(2)) ?? .user, nickname: try row.decode(3), profileURL: try row.decode(4),
            email: try row.decode(9), provider: (try row.decode(7, as: String?.self)).flatMap(IdentityProvider.init(rawValue:)),
            createdAt: try row.decode(5), identities: identities)
    }

    static func load(_ id: UserID, _ connection: PostgresConnection) throws -> User {
        guard let user = try find(id, connection) else { throw AuthError.sessionRevoked }
        return user
    }

    private static func insert(_ identity: NewIdentity, for id: UserID, now: Date, _ connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO identities (id, user_id, provider, subject, email, password_hash, name, picture, created_at, last_sign_in_at, updated_at)
            VALUES (\(UUID()), \(id.rawValue), \(identity.provider.rawValue), \(identity.subject), \(identity.email), \(identity.passwordHash),
                    \(identity.profile.name), \(identity.profile.picture), \(now), \(now), \(now))
            """)
    }

    /// Runs `body`, turning a unique violation on identities into the domain's answer.
    private static func mappingIdentityConflicts<T>(
        _ identity: NewIdentity, emailTaken: AuthError = .emailTaken, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw identity.provider == .email ? emailTaken : AuthError.identityExists
        }
    }
}
