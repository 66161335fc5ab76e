import Foundation

/// What a service API key may do.
public enum ServiceScope: String, Sendable, CaseIterable {
    /// The ingest API: influencers, posts and the influencer request queue.
    case ingest
}

/// A service API key as listed: never its text, which is shown once when made.
public struct ServiceKey: Sendable, Equatable {
    public let id: Int
    /// The operator's name for it (unique).
    public let name: String
    public let scope: ServiceScope
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let revokedAt: Date?
    /// Calls its routes have answered with it (`/v1/ingest`).
    public let calls: Int

    public init(id: Int, name: String, scope: ServiceScope, createdAt: Date, lastUsedAt: Date?, revokedAt: Date?, calls: Int = 0) {
        self.id = id
        self.name = name
        self.scope = scope
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.calls = calls
    }
}

/// Keys for services (the automation that fills the feed), stored as hashes.
public protocol ServiceKeyRepository: Sendable {
    /// Stores a new key named `name` whose text is `text`; ``DomainError/conflict(_:)``
    /// (`api_key`) when the name is taken.
    func create(name: String, scope: ServiceScope, text: String) async throws -> ServiceKey
    /// The live key whose text is `text`, its use recorded (and counted as a call when
    /// `counting`: a call's head and its handler both check the key); `nil` for an unknown
    /// or revoked one.
    func use(text: String, at: Date, counting: Bool) async throws -> ServiceKey?
    /// Every key, newest first.
    func list() async throws -> [ServiceKey]
    /// Revokes the key with this name or id; `nil` when there is none.
    func revoke(nameOrID: String, at: Date) async throws -> ServiceKey?
}

/// The rules of service key texts: `m09_<scope>_` then 43 base64url characters (32 random
/// bytes), so a key is told from a user's access token (a JWT) at a glance, and a key of
/// one scope is refused by another's routes without a lookup.
public enum ServiceKeyText {
    /// The prefix of keys of `scope`.
    public static func prefix(_ scope: ServiceScope) -> String { "m09_\(scope.rawValue)_" }

    /// Whether `text` has the shape of a key of `scope`.
    public static func looksLike(_ text: String, scope: ServiceScope) -> Bool {
        let prefix = prefix(scope)
        guard text.hasPrefix(prefix), text.utf8.count == prefix.utf8.count + 43 else { return false }
        return text.utf8.dropFirst(prefix.utf8.count).allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95
        }
    }

    /// Names: 1–64 of A-Z, a-z, 0-9, `.`, `_`, `-`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 95 || $0 == 45 }
    }
}
