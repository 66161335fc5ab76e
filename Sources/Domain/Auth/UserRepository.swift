import Foundation

/// A new identity to attach to a user.
public struct NewIdentity: Sendable, Equatable {
    public let provider: IdentityProvider
    /// Provider-specific subject: the normalised email for `email`, the OIDC `sub` otherwise.
    public let subject: String
    /// The email, when known.
    public let email: String?
    /// The password hash (email identities only).
    public let passwordHash: String?
    /// What the provider says of the user (fills an empty nickname and picture).
    public let profile: IdentityProfile

    public init(provider: IdentityProvider, subject: String, email: String?, passwordHash: String?, profile: IdentityProfile = IdentityProfile()) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.passwordHash = passwordHash
        self.profile = profile
    }
}

/// A stored identity and the user it signs in.
public struct StoredIdentity: Sendable, Equatable {
    /// The user the identity belongs to.
    public let userID: UserID
    /// The password hash, for email identities.
    public let passwordHash: String?

    public init(userID: UserID, passwordHash: String?) {
        self.userID = userID
        self.passwordHash = passwordHash
    }
}

/// Accounts and identities.
public protocol UserRepository: RequestScoped {
    /// Inserts an anonymous user.
    func createAnonymous(id: UserID, now: Date) async throws -> User
    /// Inserts a permanent user with its first identity; ``AuthError/emailTaken`` or
    /// ``AuthError/identityExists`` when the identity is already used. The nickname is
    /// `nickname` or else the identity's name; the picture the identity's.
    func createPermanent(id: UserID, identity: NewIdentity, nickname: String?, now: Date) async throws -> User
    /// The user, or `nil` when it does not exist.
    func user(id: UserID) async throws -> User?
    /// The identity `(provider, subject)`, or `nil`.
    func identity(provider: IdentityProvider, subject: String) async throws -> StoredIdentity?
    /// Attaches `identity` to anonymous user `id` and makes it permanent, in one
    /// transaction (the identity's name and picture fill an empty profile);
    /// ``AuthError/identityExists`` when taken, ``AuthError/alreadyPermanent`` when the
    /// user is not anonymous.
    func upgrade(id: UserID, identity: NewIdentity, now: Date) async throws -> User
    /// Moves anonymous user `anonymous`'s likes to `target` (skipping ones `target` already
    /// has) and deletes `anonymous`, in one transaction.
    func merge(anonymous: UserID, into target: UserID) async throws
    /// Updates the profile fields given (nil leaves a field unchanged).
    func updateProfile(id: UserID, nickname: String?, profileURL: String?, now: Date) async throws -> User
    /// Deletes the user with identities, sessions and likes; posts lose their submitter.
    func delete(id: UserID) async throws
    /// Records a successful sign-in through an identity, with what its provider says of
    /// the user now (`nil`: nothing, as for a password): the identity keeps it, and it
    /// fills the user's nickname and picture where they are empty, never over the user's own.
    func recordSignIn(provider: IdentityProvider, subject: String, profile: IdentityProfile?, now: Date) async throws
}
