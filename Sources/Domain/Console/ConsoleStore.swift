import Foundation

/// What the operators' console reads and changes. Every change takes the ``AdminActor``
/// doing it and writes its audit entry (before → after) in the change's own transaction:
/// a change is never made without its entry, nor recorded without being made.
public protocol ConsoleStore: Sendable {
    // Sessions: tokens are stored as their SHA-256.
    func createSession(tokenHash: [UInt8], user: UserID, csrfToken: String, address: String?, now: Date) async throws
    /// The session of an admin that was used after `idleSince`, its use at `now` recorded;
    /// `nil` for an unknown, idle or non-admin one.
    func session(tokenHash: [UInt8], idleSince: Date, now: Date) async throws -> ConsoleSession?
    func endSession(tokenHash: [UInt8]) async throws

    func overview(now: Date) async throws -> ConsoleOverview

    func posts(_ filter: ConsolePostFilter, now: Date, offset: Int, limit: Int) async throws -> Page<ConsolePost>
    func post(id: PostID) async throws -> ConsolePost?
    /// Applies `changes` (the rules of a member's edit); ``DomainError/notFound(_:)`` when the
    /// post is not shown (hidden posts are shown again first).
    func editPost(id: PostID, changes: PostChanges, by actor: AdminActor) async throws
    /// Hides (or shows again) the posts; how many changed.
    func setHidden(posts: [PostID], hidden: Bool, by actor: AdminActor) async throws -> Int
    func deletePost(id: PostID, by actor: AdminActor) async throws -> Bool

    func influencers(search: String?, hidden: Bool, offset: Int, limit: Int) async throws -> Page<ConsoleInfluencer>
    func influencer(id: InfluencerID) async throws -> ConsoleInfluencer?
    func editInfluencer(id: InfluencerID, changes: InfluencerChanges, by actor: AdminActor) async throws -> Bool
    /// Hides an influencer with all their posts (or shows them again).
    func setHidden(influencer: InfluencerID, hidden: Bool, by actor: AdminActor) async throws -> Bool

    func users(search: String?, offset: Int, limit: Int) async throws -> Page<ConsoleUser>
    func user(id: UserID) async throws -> ConsoleUser?
    /// The account's latest sessions, live ones first.
    func sessions(of user: UserID, limit: Int) async throws -> [AccountSession]
    /// Makes the permanent user `user` (email or id) an admin or an ordinary user;
    /// ``DomainError/forbidden(_:)`` when it would leave no admin, `nil` when
    /// there is no such user.
    func setRole(_ role: Role, user: String, by actor: AdminActor) async throws -> UserID?
    /// Revokes every session of the user (API and console); how many.
    func signOutEverywhere(user: UserID, by actor: AdminActor) async throws -> Int
    /// Deletes the account; ``DomainError/forbidden(_:)`` for the last admin.
    func deleteUser(_ user: UserID, by actor: AdminActor) async throws -> Bool

    func requests(status: InfluencerRequest.Status?, offset: Int, limit: Int) async throws -> Page<InfluencerRequest>
    /// Approves with the operator's fields; `nil` when approved already or unknown.
    func approveRequest(id: Int, profile: InstagramProfile, by actor: AdminActor) async throws -> InfluencerRequest?
    func rejectRequest(id: Int, reason: InfluencerRequest.Failure, by actor: AdminActor) async throws -> InfluencerRequest?
    func retryRequest(id: Int, by actor: AdminActor) async throws -> InfluencerRequest?

    func keys() async throws -> [ServiceKey]
    func createKey(name: String, scope: ServiceScope, text: String, by actor: AdminActor) async throws -> ServiceKey
    func revokeKey(nameOrID: String, by actor: AdminActor) async throws -> ServiceKey?

    func audit(_ query: AuditQuery) async throws -> [AuditEntry]
    /// Records an action whose change ran in transactions of its own (the CLI's batched
    /// pruning): what it did, once it is done.
    func record(_ actor: AdminActor, action: String, target: String, after: String?) async throws
    /// Deletes entries older than `cutoff`; how many.
    func pruneAudit(before cutoff: Date) async throws -> Int
}
