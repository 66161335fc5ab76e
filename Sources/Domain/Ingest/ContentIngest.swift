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

    public init(line: Int, username: String, fullName: String?, profilePicURL: String?, externalURL: String?,
                biography: String?, followersCount: Int, category: String?) {
        self.line = line
        self.username = username
        self.fullName = fullName
        self.profilePicURL = profilePicURL
        self.externalURL = externalURL
        self.biography = biography
        self.followersCount = followersCount
        self.category = category
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

/// What importing one row did.
public enum ImportOutcome: Sendable, Equatable {
    case inserted, updated, unchanged
    /// The row was refused by a rule only the database can check.
    case rejected(String)
}

/// Where rows of content arrive in bulk: `market09 import` and the ingest API (the
/// automation that fills the feed). Rows are upserted by natural key, so sending the same
/// rows again changes nothing.
public protocol ContentIngest: Sendable {
    /// Upserts influencers by username, in transactions of `batchSize` rows (one for all if
    /// `atomic`: then any rejection rolls everything back); outcomes in row order.
    func influencers(_ rows: [InfluencerImport], atomic: Bool, batchSize: Int) async throws -> [ImportOutcome]
    /// Upserts posts by influencer, product and buying window, likewise.
    func posts(_ rows: [PostImport], atomic: Bool, batchSize: Int) async throws -> [ImportOutcome]
    /// Which of `instagramPostIDs` some stored post came from.
    func knownPosts(instagramPostIDs: [String]) async throws -> Set<String>
    /// Up to `limit` influencer usernames after `after`, in order (a keyset page of all).
    func influencerUsernames(after: String?, limit: Int) async throws -> [String]
}
