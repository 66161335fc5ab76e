import Foundation

/// Where an admin action came from.
public enum AuditChannel: String, Sendable, CaseIterable {
    /// The operators' console (`/admin`).
    case console
    /// `market09 admin …` on the server.
    case cli
    /// An admin's call to the product API (editing or deleting another member's post).
    case api
}

/// Who does an admin action, and from where: written with the action, in its transaction.
public struct AdminActor: Sendable, Equatable {
    /// The admin's account; `nil` for the CLI, which runs as an operating-system user.
    public let userID: UserID?
    /// What the log shows: the admin's email, or `cli:<os user>`.
    public let name: String
    public let channel: AuditChannel
    /// The client's address (after the trusted proxies); `nil` for the CLI.
    public let address: String?

    public init(userID: UserID?, name: String, channel: AuditChannel, address: String?) {
        self.userID = userID
        self.name = String(name.prefix(300))
        self.channel = channel
        self.address = address.map { String($0.prefix(64)) }
    }

    /// The CLI run by `user` (the operating system's name for who ran it).
    public static func cli(_ user: String) -> AdminActor {
        AdminActor(userID: nil, name: "cli:" + (user.isEmpty ? "unknown" : user), channel: .cli, address: nil)
    }
}

/// One line of the audit log: who, when, what, before → after, from which address.
public struct AuditEntry: Sendable, Equatable {
    public let id: Int
    public let at: Date
    public let actor: String
    public let channel: AuditChannel
    public let address: String?
    /// `post.hide`, `user.role`, `api_key.create`, …
    public let action: String
    /// What it was done to: `post 12`, `user <uuid>`, `api_key 3`.
    public let target: String
    /// The changed record before and after, as JSON text (`nil`: it did not exist).
    public let before: String?
    public let after: String?

    public init(id: Int, at: Date, actor: String, channel: AuditChannel, address: String?, action: String, target: String,
                before: String?, after: String?) {
        self.id = id
        self.at = at
        self.actor = actor
        self.channel = channel
        self.address = address
        self.action = action
        self.target = target
        self.before = before
        self.after = after
    }
}

/// What part of the audit log to read: newest first, entries older than `beforeID` (the
/// next page), those whose actor, action or target contains `search`.
public struct AuditQuery: Sendable, Equatable {
    public var search: String?
    public var beforeID: Int?
    public var limit: Int

    public init(search: String? = nil, beforeID: Int? = nil, limit: Int = 50) {
        self.search = search
        self.beforeID = beforeID
        self.limit = limit
    }
}
