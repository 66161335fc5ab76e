import Foundation

/// An influencer with the numbers a profile screen shows.
public struct InfluencerProfile: Sendable, Equatable {
    /// The fields shown with posts.
    public let summary: InfluencerSummary
    /// Instagram biography.
    public let biography: String?
    /// Instagram follower count.
    public let followersCount: Int
    /// The influencer's main category.
    public let category: CategoryID?
    /// Posts of the influencer.
    public let postCount: Int
    /// 09Market users who follow the influencer (``followersCount`` is Instagram's).
    public let appFollowersCount: Int
    /// Whether the viewer follows the influencer.
    public let isFollowed: Bool

    public init(summary: InfluencerSummary, biography: String?, followersCount: Int, category: CategoryID?, postCount: Int,
                appFollowersCount: Int, isFollowed: Bool) {
        self.summary = summary
        self.biography = biography
        self.followersCount = followersCount
        self.category = category
        self.postCount = postCount
        self.appFollowersCount = appFollowersCount
        self.isFollowed = isFollowed
    }
}

/// Influencer lookups.
public protocol InfluencerRepository: RequestScoped {
    /// Influencers whose username or full name contains `search` (all when `nil`), by
    /// follower count, with the total; `isFollowed` for `viewer`.
    func search(_ search: String?, viewer: UserID?, offset: Int, limit: Int) async throws -> Page<InfluencerProfile>
    /// One influencer as `viewer` sees it, or `nil`.
    func influencer(id: InfluencerID, viewer: UserID?) async throws -> InfluencerProfile?
}

/// Use cases of influencers: search, profile, and their posts in the feed's shape.
public struct Influencers: Sendable {
    private let influencers: any InfluencerRepository
    private let feed: BrowseFeed

    public init(influencers: any InfluencerRepository, feed: BrowseFeed) {
        self.influencers = influencers
        self.feed = feed
    }

    /// A page of influencers.
    public func search(_ search: String?, viewer: Principal, page: Int, limit: Int) async throws -> Page<InfluencerProfile> {
        try await influencers.search(search, viewer: viewer.userID, offset: (page - 1) * limit, limit: limit)
    }

    /// One influencer; ``DomainError/notFound(_:)`` when missing.
    public func profile(_ id: InfluencerID, viewer: Principal) async throws -> InfluencerProfile {
        guard let profile = try await influencers.influencer(id: id, viewer: viewer.userID) else { throw DomainError.notFound("influencer") }
        return profile
    }

    /// The influencer's posts with the feed's filters and sorts.
    public func posts(_ id: InfluencerID, query: FeedQuery, viewer: Principal) async throws -> FeedPage {
        _ = try await profile(id, viewer: viewer)
        var query = query
        query.influencer = id
        return try await feed.page(query, viewer: viewer)
    }
}

extension Influencers: RequestScoped {
    public func scoped(_ scope: RequestScope) -> Influencers { Influencers(influencers: influencers.scoped(scope), feed: feed.scoped(scope)) }
}
