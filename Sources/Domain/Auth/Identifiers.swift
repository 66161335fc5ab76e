import Codecs
import Foundation

/// A user's identifier; anonymous users keep theirs when they become permanent.
public struct UserID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The UUID.
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
    /// Lower-case UUID text.
    public var description: String { rawValue.lowercasedText }
}

/// A signed-in device's session; access tokens carry it as `sid`.
public struct SessionID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The UUID.
    public let rawValue: UUID
    public init(rawValue: UUID) { self.rawValue = rawValue }
    /// Lower-case UUID text.
    public var description: String { rawValue.lowercasedText }
}

/// What a user may do beyond their own data.
public enum Role: String, Sendable, Hashable, CaseIterable {
    /// Everybody.
    case user
    /// Operators: may edit and delete anybody's posts.
    case admin
}

/// How a permanent user signs in.
public enum IdentityProvider: String, Sendable, Hashable, CaseIterable {
    /// Email address and password.
    case email
    /// Google OpenID Connect ID token.
    case google
    /// Sign in with Apple ID token.
    case apple
}
