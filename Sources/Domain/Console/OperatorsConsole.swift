import Foundation

/// The operators' console's rules over its store: who may sign in (admins, by password,
/// under the API's limits), how long a session lives idle, and what asks for more than a
/// click (the last admin, a deleted account, a bulk action over ``bulkConfirmationThreshold``
/// rows).
public struct OperatorsConsole: Sendable {
    /// Rows above which a bulk action must be confirmed by typing their count.
    public static let bulkConfirmationThreshold = 100
    /// The most rows one bulk action changes.
    public static let bulkLimit = 1_000

    public let store: any ConsoleStore
    private let authentication: Authentication
    /// A session unused this long is over.
    public let idleTimeout: TimeInterval
    /// A new random token (session or CSRF), and its stored hash.
    private let newToken: @Sendable () -> String
    private let hash: @Sendable (String) -> [UInt8]
    private let now: @Sendable () -> Date

    public init(store: any ConsoleStore, authentication: Authentication, idleTimeout: TimeInterval,
                newToken: @escaping @Sendable () -> String, hash: @escaping @Sendable (String) -> [UInt8],
                now: @escaping @Sendable () -> Date) {
        self.store = store
        self.authentication = authentication
        self.idleTimeout = idleTimeout
        self.newToken = newToken
        self.hash = hash
        self.now = now
    }

    /// Signs an admin in: a new session token (the cookie's) and its CSRF token. An ordinary
    /// account's correct password is refused as a wrong one would be… but only after it was
    /// checked, so the answer does not tell which accounts are admins without the password.
    public func signIn(email: String, password: String, client: String) async throws -> (token: String, session: ConsoleSession) {
        let user = try await authentication.verifyPassword(email: email, password: password, client: client)
        guard user.role == .admin, !user.isAnonymous else { throw DomainError.forbidden("not_admin") }
        let token = newToken()
        let csrf = newToken()
        try await store.createSession(tokenHash: hash(token), user: user.id, csrfToken: csrf, address: client, now: now())
        return (token, ConsoleSession(userID: user.id, email: user.email ?? email, csrfToken: csrf))
    }

    /// The live admin session of `token`, its use recorded; `nil` when there is none.
    public func session(token: String) async throws -> ConsoleSession? {
        guard (1...128).contains(token.utf8.count) else { return nil }
        let now = now()
        return try await store.session(tokenHash: hash(token), idleSince: now.addingTimeInterval(-idleTimeout), now: now)
    }

    public func signOut(token: String) async throws {
        try await store.endSession(tokenHash: hash(token))
    }

    /// Deletes an account after the acting admin re-entered their own password.
    public func deleteUser(_ user: UserID, confirmingWith password: String, session: ConsoleSession, actor: AdminActor) async throws -> Bool {
        _ = try await authentication.verifyPassword(email: session.email, password: password, client: actor.address ?? "console")
        return try await store.deleteUser(user, by: actor)
    }

    /// Hides or shows the posts; above ``bulkConfirmationThreshold`` rows `confirmedCount`
    /// must equal their number.
    public func setHidden(posts: [PostID], hidden: Bool, confirmedCount: Int?, actor: AdminActor) async throws -> Int {
        guard !posts.isEmpty else { throw DomainError.invalid(field: "ids", message: "Choose at least one post.") }
        guard posts.count <= Self.bulkLimit else {
            throw DomainError.invalid(field: "ids", message: "At most \(Self.bulkLimit) posts at a time.")
        }
        if posts.count > Self.bulkConfirmationThreshold, confirmedCount != posts.count {
            throw DomainError.invalid(field: "confirm", message: "Type \(posts.count) to confirm a change of \(posts.count) posts.")
        }
        return try await store.setHidden(posts: posts, hidden: hidden, by: actor)
    }
}
