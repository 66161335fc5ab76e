import Foundation

/// A session just issued or refreshed: the HTTP layer turns it into an access token
/// (signed for `issuedAt`) and the refresh token.
public struct IssuedSession: Sendable, Equatable {
    /// The signed-in user.
    public let user: User
    public let sessionID: SessionID
    /// The refresh token, in clear (only ever handed to the client).
    public let refreshToken: String
    /// When the pair was issued; the access token's `iat`.
    public let issuedAt: Date
}

/// How an anonymous user proves the identity to upgrade with.
public enum UpgradeCredential: Sendable, Equatable {
    /// A new (or existing, when merging) email and password.
    case email(email: String, password: String)
    /// A Google or Apple ID token.
    case idToken(provider: IdentityProvider, idToken: String, nonce: String?)
}

/// Which sessions a logout ends.
public enum LogoutScope: String, Sendable, CaseIterable {
    /// The calling session.
    case local
    /// Every session of the user.
    case global
    /// Every session but the calling one.
    case others
}

/// Use cases of signing in and out: anonymous sessions, sign-up, password and ID-token
/// sign-in, refresh-token rotation, upgrade of an anonymous account, logout.
public struct Authentication: Sendable {
    /// Tunables of the session rules.
    public struct Settings: Sendable {
        /// How long a rotated refresh token may be presented again and get the same answer.
        public var refreshGrace: TimeInterval = 10
        /// Optional session lifetime limits.
        public var limits = SessionLimits()
        public init() {}
    }

    private let users: any UserRepository
    private let sessions: any SessionRepository
    private let passwords: any PasswordHasher
    private let attempts: any PasswordAttemptLimiter
    private let refreshTokens: any RefreshTokenFactory
    private let idTokens: any IDTokenVerifier
    private let settings: Settings
    private let now: @Sendable () -> Date
    private let newID: @Sendable () -> UUID

    /// Creates the use cases over their dependencies; `now` and `newID` are injected so
    /// tests can pin them.
    public init(users: any UserRepository, sessions: any SessionRepository, passwords: any PasswordHasher,
                attempts: any PasswordAttemptLimiter, refreshTokens: any RefreshTokenFactory, idTokens: any IDTokenVerifier, settings: Settings = Settings(),
                now: @escaping @Sendable () -> Date, newID: @escaping @Sendable () -> UUID) {
        self.users = users
        self.sessions = sessions
        self.passwords = passwords
        self.attempts = attempts
        self.refreshTokens = refreshTokens
        self.idTokens = idTokens
        self.settings = settings
        self.now = now
        self.newID = newID
    }

    /// Creates an anonymous user and its session.
    public func signInAnonymously() async throws -> IssuedSession {
        let user = try await users.createAnonymous(id: UserID(rawValue: newID()), now: now())
        return try await startSession(for: user)
    }

    /// Creates a permanent user with an email identity.
    public func signUp(email: String, password: String, nickname: String?) async throws -> IssuedSession {
        let email = try CredentialRules.email(email)
        try CredentialRules.password(password)
        let nickname = try nickname.map(ProfileRules.nickname)
        let identity = NewIdentity(provider: .email, subject: email, email: email, passwordHash: try await passwords.hash(password))
        let user = try await users.createPermanent(id: UserID(rawValue: newID()), identity: identity, nickname: nickname, now: now())
        return try await startSession(for: user)
    }

    /// Signs in with email and password, drawing on the password budgets of `email` and
    /// `client`; one answer (and one KDF run) for an unknown email and a wrong password,
    /// so the endpoint does not reveal which emails have accounts.
    public func signIn(email: String, password: String, client: String) async throws -> IssuedSession {
        let email = try CredentialRules.email(email)
        let owner = try await verifiedEmailOwner(email: email, password: password, client: client)
        try await users.recordSignIn(provider: .email, subject: email, profile: nil, now: now())
        return try await startSession(for: owner)
    }

    /// The owner of `email` when `password` is theirs, under the same budgets, lockouts and
    /// single answer as ``signIn(email:password:client:)``, without starting an API session:
    /// the operators' console signs in (and re-confirms dangerous actions) with it.
    public func verifyPassword(email: String, password: String, client: String) async throws -> User {
        let email = try CredentialRules.email(email)
        let owner = try await verifiedEmailOwner(email: email, password: password, client: client)
        try await users.recordSignIn(provider: .email, subject: email, profile: nil, now: now())
        return owner
    }

    /// Signs in with a Google or Apple ID token, creating the user on first sign-in.
    public func signIn(provider: IdentityProvider, idToken: String, nonce: String?) async throws -> IssuedSession {
        let verified = try await idTokens.verify(provider: provider, idToken: idToken, nonce: nonce)
        if let existing = try await users.identity(provider: provider, subject: verified.subject) {
            try await users.recordSignIn(provider: provider, subject: verified.subject, profile: verified.profile, now: now())
            return try await startSession(for: try await existingUser(existing.userID))
        }
        let identity = NewIdentity(provider: provider, subject: verified.subject, email: verified.email, passwordHash: nil, profile: verified.profile)
        let user = try await users.createPermanent(id: UserID(rawValue: newID()), identity: identity, nickname: nil, now: now())
        return try await startSession(for: user)
    }

    /// Rotates a refresh token. A token rotated less than the grace window ago gets the
    /// same pair its first use got; an older one revokes the session.
    public func refresh(refreshToken: String) async throws -> IssuedSession {
        let successor = refreshTokens.successor(of: refreshToken)
        let outcome = try await sessions.rotate(
            tokenHash: refreshTokens.hash(refreshToken), successorHash: refreshTokens.hash(successor),
            now: now(), grace: settings.refreshGrace, limits: settings.limits)
        switch outcome {
        case .rotated(let user, let sessionID, let issuedAt), .replayed(let user, let sessionID, let issuedAt):
            return IssuedSession(user: user, sessionID: sessionID, refreshToken: successor, issuedAt: issuedAt)
        case .reused: throw AuthError.refreshTokenReused
        case .revoked: throw AuthError.sessionRevoked
        case .unknown: throw AuthError.invalidToken("unknown refresh token")
        }
    }

    /// Makes the calling anonymous user permanent with `credential`, keeping its id and
    /// data, in a new session. When the identity belongs to another account, `merge` moves
    /// the anonymous user's likes there and signs in as that account instead (an email's
    /// password is then checked against the same budgets as a sign-in by `client`).
    public func upgrade(_ principal: Principal, with credential: UpgradeCredential, merge: Bool, client: String) async throws -> IssuedSession {
        switch try await attach(credential, to: principal, merge: merge, client: client) {
        case .upgraded(let user):
            try await sessions.revoke(id: principal.sessionID, reason: .logout, now: now())
            return try await startSession(for: user)
        case .owner(let owner):
            try await users.merge(anonymous: principal.userID, into: owner.id)
            return try await startSession(for: owner)
        }
    }

    /// The upgrade as Supabase's `PUT /user` does it: the session goes on (its next refresh
    /// carries the permanent user), and an identity of another account is refused.
    public func upgradeKeepingSession(_ principal: Principal, with credential: UpgradeCredential, client: String) async throws -> User {
        guard case .upgraded(let user) = try await attach(credential, to: principal, merge: false, client: client) else {
            throw AuthError.identityExists
        }
        return user
    }

    private enum Attachment {
        /// The anonymous user now has the identity.
        case upgraded(User)
        /// The identity is another account's, and merging into it was asked for.
        case owner(User)
    }

    private func attach(_ credential: UpgradeCredential, to principal: Principal, merge: Bool, client: String) async throws -> Attachment {
        guard principal.isAnonymous else { throw AuthError.alreadyPermanent }
        let identity: NewIdentity
        switch credential {
        case .email(let email, let password):
            let email = try CredentialRules.email(email)
            if let existing = try await users.identity(provider: .email, subject: email), existing.userID != principal.userID {
                guard merge else { throw AuthError.identityExists }
                return .owner(try await verifiedEmailOwner(email: email, password: password, client: client))
            }
            try CredentialRules.password(password)
            identity = NewIdentity(provider: .email, subject: email, email: email, passwordHash: try await passwords.hash(password))
        case .idToken(let provider, let idToken, let nonce):
            let verified = try await idTokens.verify(provider: provider, idToken: idToken, nonce: nonce)
            if let existing = try await users.identity(provider: provider, subject: verified.subject), existing.userID != principal.userID {
                guard merge else { throw AuthError.identityExists }
                return .owner(try await existingUser(existing.userID))
            }
            identity = NewIdentity(provider: provider, subject: verified.subject, email: verified.email, passwordHash: nil, profile: verified.profile)
        }
        return .upgraded(try await users.upgrade(id: principal.userID, identity: identity, now: now()))
    }

    /// Ends the sessions `scope` names.
    public func logout(_ principal: Principal, scope: LogoutScope) async throws {
        switch scope {
        case .local: try await sessions.revoke(id: principal.sessionID, reason: .logout, now: now())
        case .global: try await sessions.revokeAll(userID: principal.userID, keeping: nil, reason: .logout, now: now())
        case .others: try await sessions.revokeAll(userID: principal.userID, keeping: principal.sessionID, reason: .logout, now: now())
        }
    }

    /// The one place a password is checked: reserved against the budgets first, the KDF
    /// run whether or not the email has a password, the reservation kept only on failure.
    private func verifiedEmailOwner(email: String, password: String, client: String) async throws -> User {
        try await attempts.reserve(email: email, client: client)
        let owner: UserID?
        do {
            let identity = try await users.identity(provider: .email, subject: email)
            let matches = try await passwords.verify(password, against: identity?.passwordHash ?? passwords.decoyHash)
            owner = matches && identity?.passwordHash != nil ? identity?.userID : nil
        } catch {
            await attempts.release(email: email, client: client)
            throw error
        }
        guard let owner else { throw AuthError.invalidCredentials }
        await attempts.release(email: email, client: client)
        return try await existingUser(owner)
    }

    private func existingUser(_ id: UserID) async throws -> User {
        guard let user = try await users.user(id: id) else { throw AuthError.sessionRevoked }
        return user
    }

    private func startSession(for user: User) async throws -> IssuedSession {
        let token = refreshTokens.generate()
        let sessionID = SessionID(rawValue: newID())
        let issuedAt = now()
        try await sessions.create(id: sessionID, userID: user.id, tokenHash: refreshTokens.hash(token), now: issuedAt)
        return IssuedSession(user: user, sessionID: sessionID, refreshToken: token, issuedAt: issuedAt)
    }
}
