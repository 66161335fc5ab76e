import Domain
import Foundation
import Synchronization

/// A ``ConsoleStore`` keeping console sessions in memory and recording the changes it is
/// asked for; the lists and pages a test does not need throw ``UnexpectedCall``.
public final class InMemoryConsoleStore: ConsoleStore {
    private struct Session {
        let user: UserID
        let email: String
        let csrf: String
        var lastSeen: Date
    }

    private let sessionsByHash = Mutex<[[UInt8]: Session]>([:])
    private let log = Mutex<[String]>([])
    /// The email each user signs the console in with (the store's join with identities).
    private let emails: [UserID: String]

    public init(emails: [UserID: String] = [:]) {
        self.emails = emails
    }

    /// The changes asked for, in order (`hide 1,2`, `delete user <id>`).
    public var changes: [String] { log.withLock { $0 } }
    /// The hashes of the sessions stored.
    public var storedHashes: [[UInt8]] { sessionsByHash.withLock { Array($0.keys) } }

    public func createSession(tokenHash: [UInt8], user: UserID, csrfToken: String, address: String?, now: Date) async throws {
        sessionsByHash.withLock { $0[tokenHash] = Session(user: user, email: emails[user] ?? "", csrf: csrfToken, lastSeen: now) }
    }

    public func session(tokenHash: [UInt8], idleSince: Date, now: Date) async throws -> ConsoleSession? {
        sessionsByHash.withLock { sessions in
            guard var session = sessions[tokenHash], session.lastSeen > idleSince else { return nil }
            session.lastSeen = now
            sessions[tokenHash] = session
            return ConsoleSession(userID: session.user, email: session.email, csrfToken: session.csrf)
        }
    }

    public func endSession(tokenHash: [UInt8]) async throws {
        _ = sessionsByHash.withLock { $0.removeValue(forKey: tokenHash) }
    }

    public func setHidden(posts: [PostID], hidden: Bool, by actor: AdminActor) async throws -> Int {
        log.withLock { $0.append("\(hidden ? "hide" : "show") \(posts.map(\.description).joined(separator: ",")) by \(actor.name)") }
        return posts.count
    }

    public func deleteUser(_ user: UserID, by actor: AdminActor) async throws -> Bool {
        log.withLock { $0.append("delete user \(user) by \(actor.name)") }
        return true
    }

    public func overview(now: Date) async throws -> ConsoleOverview { throw UnexpectedCall("overview") }
    public func posts(_ filter: ConsolePostFilter, now: Date, offset: Int, limit: Int) async throws -> Page<ConsolePost> { throw UnexpectedCall("posts") }
    public func post(id: PostID) async throws -> ConsolePost? { throw UnexpectedCall("post") }
    public func editPost(id: PostID, changes: PostChanges, by actor: AdminActor) async throws { throw UnexpectedCall("editPost") }
    public func deletePost(id: PostID, by actor: AdminActor) async throws -> Bool { throw UnexpectedCall("deletePost") }
    public func influencers(search: String?, hidden: Bool, offset: Int, limit: Int) async throws -> Page<ConsoleInfluencer> { throw UnexpectedCall("influencers") }
    public func influencer(id: InfluencerID) async throws -> ConsoleInfluencer? { throw UnexpectedCall("influencer") }
    public func editInfluencer(id: InfluencerID, changes: InfluencerChanges, by actor: AdminActor) async throws -> Bool { throw UnexpectedCall("editInfluencer") }
    public func setHidden(influencer: InfluencerID, hidden: Bool, by actor: AdminActor) async throws -> Bool { throw UnexpectedCall("setHidden(influencer:)") }
    public func users(search: String?, offset: Int, limit: Int) async throws -> Page<ConsoleUser> { throw UnexpectedCall("users") }
    public func user(id: UserID) async throws -> ConsoleUser? { throw UnexpectedCall("user") }
    public func sessions(of user: UserID, limit: Int) async throws -> [AccountSession] { throw UnexpectedCall("sessions") }
    public func setRole(_ role: Role, user: String, by actor: AdminActor) async throws -> UserID? { throw UnexpectedCall("setRole") }
    public func signOutEverywhere(user: UserID, by actor: AdminActor) async throws -> Int { throw UnexpectedCall("signOutEverywhere") }
    public func requests(status: InfluencerRequest.Status?, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> { throw UnexpectedCall("requests") }
    public func approveRequest(id: Int, profile: InstagramProfile, by actor: AdminActor) async throws -> InfluencerRequest? { throw UnexpectedCall("approveRequest") }
    public func rejectRequest(id: Int, reason: InfluencerRequest.Failure, by actor: AdminActor) async throws -> InfluencerRequest? { throw UnexpectedCall("rejectRequest") }
    public func retryRequest(id: Int, by actor: AdminActor) async throws -> InfluencerRequest? { throw UnexpectedCall("retryRequest") }
    public func keys() async throws -> [ServiceKey] { throw UnexpectedCall("keys") }
    public func createKey(name: String, scope: ServiceScope, text: String, by actor: AdminActor) async throws -> ServiceKey { throw UnexpectedCall("createKey") }
    public func revokeKey(nameOrID: String, by actor: AdminActor) async throws -> ServiceKey? { throw UnexpectedCall("revokeKey") }
    public func audit(_ query: AuditQuery) async throws -> [AuditEntry] { throw UnexpectedCall("audit") }
    public func record(_ actor: AdminActor, action: String, target: String, after: String?) async throws { throw UnexpectedCall("record") }
    public func pruneAudit(before cutoff: Date) async throws -> Int { throw UnexpectedCall("pruneAudit") }
}
