import Foundation

/// Use cases of the caller's own account: read, edit and delete it.
public struct Profiles: Sendable {
    private let users: any UserRepository
    private let now: @Sendable () -> Date

    public init(users: any UserRepository, now: @escaping @Sendable () -> Date) {
        self.users = users
        self.now = now
    }

    /// The caller's profile, or `nil` for an anonymous caller (who has none).
    public func profile(of principal: Principal) async throws -> User? {
        guard !principal.isAnonymous else { return nil }
        guard let user = try await users.user(id: principal.userID) else { throw AuthError.sessionRevoked }
        return user
    }

    /// The caller's account, anonymous or not (a deleted one ends the session).
    public func account(of principal: Principal) async throws -> User {
        guard let user = try await users.user(id: principal.userID) else { throw AuthError.sessionRevoked }
        return user
    }

    /// Updates the fields given; at least one must be.
    public func update(_ principal: PermanentPrincipal, nickname: String?, profileURL: String?) async throws -> User {
        guard nickname != nil || profileURL != nil else {
            throw DomainError.invalid(field: nil, message: "send nickname and/or profile_url")
        }
        let nickname = try nickname.map(ProfileRules.nickname)
        let profileURL = try profileURL.map { try ProfileRules.url($0, field: "profile_url") }
        return try await users.updateProfile(id: principal.userID, nickname: nickname, profileURL: profileURL, now: now())
    }

    /// Deletes the caller's account, anonymous or permanent.
    public func delete(_ principal: Principal) async throws {
        try await users.delete(id: principal.userID)
    }
}

extension Profiles: RequestScoped {
    public func scoped(_ scope: RequestScope) -> Profiles { Profiles(users: users.scoped(scope), now: now) }
}
