import Foundation

/// Why a session ended.
public enum RevocationReason: String, Sendable, Equatable {
    /// The user logged out.
    case logout
    /// A rotated refresh token was reused after the grace window.
    case refreshTokenReused = "refresh_token_reused"
    /// The session outlived its configured limits.
    case expired
}

/// What refreshing with a token found.
public enum RotationOutcome: Sendable, Equatable {
    /// The token was current: it is now used and its successor was stored.
    case rotated(user: User, sessionID: SessionID, issuedAt: Date)
    /// The token is the parent of the session's active token (at any time, as GoTrue
    /// allows), or was rotated moments ago (within the grace window): the successor the
    /// first use produced, issued at `issuedAt`, is the answer again.
    case replayed(user: User, sessionID: SessionID, issuedAt: Date)
    /// An older token, rotated before the grace window: the session is now revoked.
    case reused
    /// The session was revoked or expired.
    case revoked
    /// No such token.
    case unknown
}

/// Limits on a session's life; `nil` means unlimited.
public struct SessionLimits: Sendable, Equatable {
    /// Longest time from sign-in to the last refresh.
    public var maxLifetime: TimeInterval?
    /// Longest time between refreshes.
    public var maxInactivity: TimeInterval?

    public init(maxLifetime: TimeInterval? = nil, maxInactivity: TimeInterval? = nil) {
        self.maxLifetime = maxLifetime
        self.maxInactivity = maxInactivity
    }
}

/// Sessions and their refresh tokens (stored only as hashes).
public protocol SessionRepository: Sendable {
    /// Creates a session whose first refresh token hashes to `tokenHash`.
    func create(id: SessionID, userID: UserID, tokenHash: [UInt8], now: Date) async throws
    /// Rotates the refresh token hashing to `tokenHash` to the one hashing to
    /// `successorHash`, atomically, following the grace-window rules of ``RotationOutcome``.
    func rotate(tokenHash: [UInt8], successorHash: [UInt8], now: Date, grace: TimeInterval, limits: SessionLimits) async throws -> RotationOutcome
    /// Revokes one session.
    func revoke(id: SessionID, reason: RevocationReason, now: Date) async throws
    /// Revokes the user's sessions, except `keeping` when given.
    func revokeAll(userID: UserID, keeping: SessionID?, reason: RevocationReason, now: Date) async throws
}
