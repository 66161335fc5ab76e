import Foundation

/// Password hashing with a slow KDF. Implementations run the KDF off the cooperative pool.
public protocol PasswordHasher: Sendable {
    /// A self-describing hash (algorithm, parameters, salt, digest).
    func hash(_ password: String) async throws -> String
    /// Whether `password` matches `hash` (constant-time comparison).
    func verify(_ password: String, against hash: String) async throws -> Bool
    /// A well-formed hash at the current cost that no password matches. Checked in place
    /// of a missing one, so an unknown email costs what a wrong password costs and the
    /// answer's timing does not tell which emails have accounts.
    var decoyHash: String { get }
}

/// Opaque refresh tokens.
public protocol RefreshTokenFactory: Sendable {
    /// A new random token (at least 256 bits of entropy).
    func generate() -> String
    /// The token that replaces `token` on rotation. Deterministic, so a reuse within the
    /// grace window can hand back the same successor without storing it in clear.
    func successor(of token: String) -> String
    /// The hash stored in place of `token`.
    func hash(_ token: String) -> [UInt8]
}

/// What a verified third-party ID token says about its user.
public struct VerifiedIdentity: Sendable, Equatable {
    public let provider: IdentityProvider
    /// The provider's stable user id (`sub`).
    public let subject: String
    /// The email claim, when present.
    public let email: String?

    public init(provider: IdentityProvider, subject: String, email: String?) {
        self.provider = provider
        self.subject = subject
        self.email = email
    }
}

/// Verifies Google and Apple ID tokens.
public protocol IDTokenVerifier: Sendable {
    /// Checks signature, issuer, audience, expiry and nonce; throws
    /// ``AuthError/invalidToken(_:)`` or ``AuthError/providerDisabled(_:)``.
    func verify(provider: IdentityProvider, idToken: String, nonce: String?) async throws -> VerifiedIdentity
}
