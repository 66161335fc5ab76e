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
    /// The `name` and `picture` claims, when present.
    public let profile: IdentityProfile

    public init(provider: IdentityProvider, subject: String, email: String?, profile: IdentityProfile = IdentityProfile()) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.profile = profile
    }
}

/// The name and picture an identity provider states (Google's `name` and `picture`
/// claims; Apple's tokens carry neither), as stored with the identity: texts bounded,
/// the picture an http(s) URL or nothing.
public struct IdentityProfile: Sendable, Equatable {
    public let name: String?
    public let picture: String?

    public init(name: String? = nil, picture: String? = nil) {
        let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.name = trimmed.flatMap { $0.isEmpty ? nil : String($0.unicodeScalars.prefix(200)) }
        self.picture = picture.flatMap { try? ProfileRules.url($0, field: "picture") }
    }

    /// The nickname this profile gives a user who has none: the name, cut to a nickname's
    /// 30 characters.
    public var nickname: String? {
        name.map { String($0.unicodeScalars.prefix(30)).trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// Verifies Google and Apple ID tokens.
public protocol IDTokenVerifier: Sendable {
    /// Checks signature, issuer, audience, expiry and nonce; throws
    /// ``AuthError/invalidToken(_:)`` or ``AuthError/providerDisabled(_:)``.
    func verify(provider: IdentityProvider, idToken: String, nonce: String?) async throws -> VerifiedIdentity
}
