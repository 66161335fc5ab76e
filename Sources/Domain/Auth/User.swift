import Foundation

/// An account. Anonymous users have no identity and no profile; permanent users have at
/// least one identity and may have a nickname and profile picture.
public struct User: Sendable, Equatable {
    /// The identifier, stable across the anonymous → permanent upgrade.
    public var id: UserID
    /// Whether the user has no identity yet.
    public var isAnonymous: Bool
    /// The user's role.
    public var role: Role
    /// Display name (permanent users only), 1–30 characters.
    public var nickname: String?
    /// Profile picture URL (permanent users only).
    public var profileURL: String?
    /// The email of the user's first identity, when it has one.
    public var email: String?
    /// The provider of the user's first identity.
    public var provider: IdentityProvider?
    /// When the account was created.
    public var createdAt: Date
    /// The identities that sign the user in, oldest first.
    public var identities: [LinkedIdentity]

    public init(id: UserID, isAnonymous: Bool, role: Role = .user, nickname: String? = nil, profileURL: String? = nil,
                email: String? = nil, provider: IdentityProvider? = nil, createdAt: Date, identities: [LinkedIdentity] = []) {
        self.id = id
        self.isAnonymous = isAnonymous
        self.role = role
        self.nickname = nickname
        self.profileURL = profileURL
        self.email = email
        self.provider = provider
        self.createdAt = createdAt
        self.identities = identities
    }
}

/// An identity of a user as its answers show it (Supabase's `identities`).
public struct LinkedIdentity: Sendable, Equatable {
    /// The identity record's own id.
    public let id: UUID
    public let provider: IdentityProvider
    /// The provider's id of the user (`sub`; for email, the email).
    public let subject: String
    public let email: String?
    /// What the provider last said of the user.
    public let profile: IdentityProfile
    public let createdAt: Date
    public let lastSignInAt: Date?
    public let updatedAt: Date

    public init(id: UUID, provider: IdentityProvider, subject: String, email: String?, profile: IdentityProfile, createdAt: Date,
                lastSignInAt: Date?, updatedAt: Date) {
        self.id = id
        self.provider = provider
        self.subject = subject
        self.email = email
        self.profile = profile
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.updatedAt = updatedAt
    }
}

/// Who is calling, as proven by a valid access token.
public struct Principal: Sendable, Equatable {
    public let userID: UserID
    /// The session the token belongs to.
    public let sessionID: SessionID
    /// The role at the time the token was issued.
    public let role: Role
    /// Whether the user was anonymous when the token was issued.
    public let isAnonymous: Bool

    public init(userID: UserID, sessionID: SessionID, role: Role, isAnonymous: Bool) {
        self.userID = userID
        self.sessionID = sessionID
        self.role = role
        self.isAnonymous = isAnonymous
    }
}

/// A principal known to be a permanent (non-anonymous) user. Only ``Principal/permanent()``
/// makes one, so an endpoint that takes this type cannot forget the check.
public struct PermanentPrincipal: Sendable, Equatable {
    /// The underlying principal.
    public let principal: Principal
    public var userID: UserID { principal.userID }

    fileprivate init(_ principal: Principal) { self.principal = principal }
}

extension Principal {
    /// The same principal as a permanent user; throws ``AuthError/loginRequired`` for an
    /// anonymous one.
    public func permanent() throws -> PermanentPrincipal {
        guard !isAnonymous else { throw AuthError.loginRequired }
        return PermanentPrincipal(self)
    }
}
