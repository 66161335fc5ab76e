import Domain
import Foundation
import PostgresDriver

/// ``SessionRepository`` over `sessions` and `refresh_tokens`.
public struct PostgresSessionRepository: SessionRepository {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func create(id: SessionID, userID: UserID, tokenHash: [UInt8], now: Date) async throws {
        try await pool.transaction { connection in
            try connection.execute("INSERT INTO sessions (id, user_id, created_at, refreshed_at) VALUES (\(id.rawValue), \(userID.rawValue), \(now), \(now))")
            try connection.execute("INSERT INTO refresh_tokens (session_id, token_hash, created_at) VALUES (\(id.rawValue), \(PostgresBytes(tokenHash)), \(now))")
        }
    }

    public func rotate(tokenHash: [UInt8], successorHash: [UInt8], now: Date, grace: TimeInterval, limits: SessionLimits) async throws -> RotationOutcome {
        try await pool.transaction { connection in
            // Locking the token row serialises concurrent refreshes with the same token:
            // the second one sees the first one's rotation and replays it.
            guard let row = try connection.query("""
                SELECT t.id, t.used_at, s.id, s.user_id, s.revoked_at, s.created_at, s.refreshed_at, t.replaced_by
                FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
                WHERE t.token_hash = \(PostgresBytes(tokenHash))
                FOR UPDATE OF t, s
                """).first else { return .unknown }
            let tokenID: Int = try row.decode(0)
            let usedAt: Date? = try row.decode(1)
            let sessionID = SessionID(rawValue: try row.decode(2))
            let userID = UserID(rawValue: try row.decode(3))
            let revokedAt: Date? = try row.decode(4)
            let createdAt: Date = try row.decode(5)
            let refreshedAt: Date = try row.decode(6)
            let successorID: Int? = try row.decode(7)

            guard revokedAt == nil else { return .revoked }
            if let maxLifetime = limits.maxLifetime, now.timeIntervalSince(createdAt) > maxLifetime {
                try Self.revoke(sessionID, reason: .expired, now: now, connection)
                return .revoked
            }
            if let maxInactivity = limits.maxInactivity, now.timeIntervalSince(refreshedAt) > maxInactivity {
                try Self.revoke(sessionID, reason: .expired, now: now, connection)
                return .revoked
            }
            if let usedAt {
                // A separate statement: it sees the successor a concurrent refresh just
                // committed, which the locking statement's snapshot may predate.
                let successor: (issuedAt: Date, active: Bool)? = try successorID.flatMap { id in
                    try connection.query("SELECT created_at, used_at IS NULL FROM refresh_tokens WHERE id = \(id)").first
                        .map { (try $0.decode(0), try $0.decode(1)) }
                }
                // GoTrue's rule: the parent of the session's active token, at any time, gets
                // the active pair back (a client that lost a refresh's answer, or a second
                // copy of the session refreshed by another holder: the app and its SDK);
                // an older token only within the grace window, else it is reuse.
                guard let successor, successor.active || now.timeIntervalSince(usedAt) <= grace else {
                    try Self.revoke(sessionID, reason: .refreshTokenReused, now: now, connection)
                    return .reused
                }
                return .replayed(user: try PostgresUserRepository.load(userID, connection), sessionID: sessionID, issuedAt: successor.issuedAt)
            }
            let successor = try connection.query(
                "INSERT INTO refresh_tokens (session_id, token_hash, created_at) VALUES (\(sessionID.rawValue), \(PostgresBytes(successorHash)), \(now)) RETURNING id, created_at").single()
            try connection.execute("UPDATE refresh_tokens SET used_at = \(now), replaced_by = \(try successor.decode(0, as: Int.self)) WHERE id = \(tokenID)")
            try connection.execute("UPDATE sessions SET refreshed_at = \(now) WHERE id = \(sessionID.rawValue)")
            // The stored (microsecond) time, so a replay computes the identical access token.
            return .rotated(user: try PostgresUserRepository.load(userID, connection), sessionID: sessionID, issuedAt: try successor.decode(1))
        }
    }

    public func revoke(id: SessionID, reason: RevocationReason, now: Date) async throws {
        try await pool.withConnection { connection in try Self.revoke(id, reason: reason, now: now, connection) }
    }

    public func revokeAll(userID: UserID, keeping: SessionID?, reason: RevocationReason, now: Date) async throws {
        try await pool.withConnection { connection in
            try connection.execute(
                "UPDATE sessions SET revoked_at = \(now), revoked_reason = \(reason.rawValue) WHERE user_id = \(userID.rawValue) AND revoked_at IS NULL AND (\(keeping?.rawValue)::uuid IS NULL OR id <> \(keeping?.rawValue)::uuid)")
        }
    }

    private static func revoke(_ id: SessionID, reason: RevocationReason, now: Date, _ connection: PostgresConnection) throws {
        try connection.execute(
            "UPDATE sessions SET revoked_at = \(now), revoked_reason = \(reason.rawValue) WHERE id = \(id.rawValue) AND revoked_at IS NULL")
    }
}
