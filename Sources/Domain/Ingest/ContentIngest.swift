import Foundation

/// An influencer row of an import file, already validated.
public struct InfluencerImport: Sendable {
    /// Line (or element) number in the file.
    public let line: Int
    /// Instagram username.
    public let username: String
    /// Display name.
    public let fullName: String?
    /// Profile picture URL.
    public let profilePicURL: String?
    /// Link in the profile.
    public let externalURL: String?
    /// Instagram biography.
    public let biography: String?
    /// Follower count.
    public let followersCount: Int
    public let category: String?
    /// Instagram's id of the account: rows go by it when they have it (a renamed account
    /// keeps its influencer), else by username.
    public let instagramID: String?
    /// The title of the profile's link.
    public let externalURLTitle: String?
    /// Whether the account is private (only the ingest door's qualification reads it).
    public let isPrivate: Bool

    public init(line: Int, username: String, fullName: String?, profilePicURL: String?, externalURL: String?,
                biography: String?, followersCount: Int, category: String?, instagramID: String? = nil, externalURLTitle: String? = nil,
                isPrivate: Bool = false) {
        self.line = line
        self.username = username
        self.fullName = fullName
        self.profilePicURL = profilePicURL
        self.externalURL = externalURL
        self.biography = biography
        self.followersCount = followersCount
        self.category = category
        self.instagramID = instagramID
        self.externalURLTitle = externalURLTitle
        self.isPrivate = isPrivate
    }

    /// The row as a profile, for the rules that qualify an influencer.
    public var profile: InstagramProfile {
        InstagramProfile(username: username, fullName: fullName, biography: biography, profilePicURL: profilePicURL, followersCount: followersCount,
                         externalURL: externalURL, isPrivate: isPrivate, instagramID: instagramID, externalURLTitle: externalURLTitle)
    }
}

/// A post row of an import file, already validated; the influencer is named by username.
public struct PostImport: Sendable {
    /// Line (or element) number in the file.
    public let line: Int
    /// The influencer, by username.
    public let influencerUsername: String
    /// The validated post.
    public let post: NewPost

    public init(line: Int, influencerUsername: String, post: NewPost) {
        self.line = line
        self.influencerUsername = influencerUsername
        self.post = post
    }
}

/// Where a post came in. A member's post (`app`) is theirs: the bulk doors (ingest and
/// import) never change one, though they may update each other's posts, which are the
/// content pipeline's (the imported Supabase posts are the original pipeline's output).
public enum PostSource: String, Sendable, CaseIterable {
    /// Submitted by a member through the API or the Supabase surface.
    case app
    /// Sent by the automation through `/v1/ingest`.
    case ingest
    /// Loaded by `market09 import` or seeded.
    case `import`
}

/// What importing one row did.
public enum ImportOutcome: Sendable, Equatable {
    case inserted, updated, unchanged
    /// The row was refused by a rule only the database can check.
    case rejected(String)
    /// The row names a post a member made (same influencer, product and window), which a
    /// bulk door never changes.
    case conflict(String)
    /// The row is valid but not taken: the influencer does not qualify (the requests'
    /// rules).
    case skipped(String)

    /// Whether the row is in the store now (written or already so).
    public var isStored: Bool {
        switch self {
        case .inserted, .updated, .unchanged: true
        case .rejected, .conflict, .skipped: false
        }
    }
}

/// Where rows of content arrive in bulk: `market09 import` and the ingest API (the
/// automation that fills the feed). Rows are upserted by natural key, so sending the same
/// rows again changes nothing.
public protocol ContentIngest: Sendable {
    /// Upserts influencers by username, in transactions of `batchSize` rows (one for all if
    /// `atomic`: then any rejection rolls everything back); outcomes in row order.
    func influencers(_ rows: [InfluencerImport], atomic: Bool, batchSize: Int) async throws -> [ImportOutcome]
    /// Upserts posts by influencer, product and buying window, likewise, as coming from
    /// `source`; a row whose key a member's post holds is a ``ImportOutcome/conflict(_:)``.
    func posts(_ rows: [PostImport], source: PostSource, atomic: Bool, batchSize: Int) async throws -> [ImportOutcome]
    /// Which of `instagramPostIDs` some stored post came from.
    func knownPosts(instagramPostIDs: [String]) async throws -> Set<String>
    /// Up to `limit` influencer usernames after `after`, in order (a keyset page of all).
    func influencerUsernames(after: String?, limit: Int) async throws -> [String]
}
