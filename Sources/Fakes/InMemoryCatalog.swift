import Domain
import Foundation
import Synchronization

/// Influencers, posts, likes and follows held in memory, behind the ports the post use
/// cases read and write (``InMemoryPostRepository``, ``InMemoryFeedRepository``,
/// ``InMemoryFollowRepository``, ``InMemoryInfluencerRepository``): one store, so a like
/// made through one port shows in another's answer, as in the database. The rules the
/// database keeps (a like per user and post, counts moving with the rows, the submitter
/// or an admin may edit) are kept here too; orders are the ports' documented ones.
public final class InMemoryCatalog: Sendable {
    struct StoredPost: Sendable {
        var post: NewPost
        var id: PostID
        var submittedBy: UserID?
        var postedAt: Date
    }

    struct State: Sendable {
        var influencers: [InfluencerID: InstagramProfile] = [:]
        var categories: [CategoryID: String] = [:]
        var posts: [PostID: StoredPost] = [:]
        /// (user, post) → when liked: a set, one like per pair.
        var likes: [Pair: Int] = [:]
        /// (user, influencer) → when followed.
        var follows: [Follow: Int] = [:]
        /// A counter standing in for time, to order likes and follows made in one instant.
        var tick = 0
        var nextPost = 1
        var nextInfluencer = 1
        /// Days ``InMemoryFeedRepository/prepare(day:)`` was asked for.
        var preparedDays: [KoreaDay] = []
        /// The scopes reads were made for, in order.
        var scopes: [RequestScope] = []
    }

    struct Pair: Hashable, Sendable {
        let user: UserID
        let post: PostID
    }

    struct Follow: Hashable, Sendable {
        let user: UserID
        let influencer: InfluencerID
    }

    let state = Mutex(State())

    /// An empty catalog with the contract's 13 categories.
    public init() {
        state.withLock { state in
            for (id, name) in contractCategories { state.categories[CategoryID(rawValue: id)] = name }
        }
    }

    /// Adds an influencer, as an approval or an import would; returns its id.
    @discardableResult
    public func addInfluencer(_ username: String, fullName: String? = nil, followers: Int = 10_000) -> InfluencerID {
        state.withLock { state in
            let id = InfluencerID(rawValue: state.nextInfluencer)
            state.nextInfluencer += 1
            state.influencers[id] = InstagramProfile(username: username, fullName: fullName, followersCount: followers)
            return id
        }
    }

    /// The days the feed was prepared for, in the order asked.
    public var preparedDays: [KoreaDay] { state.withLock { $0.preparedDays } }
    /// The request scopes reads were made under, in order.
    public var readScopes: [RequestScope] { state.withLock { $0.scopes } }
    /// How many likes are stored.
    public var likeCount: Int { state.withLock { $0.likes.count } }

    /// The post as `viewer` sees it (its like count and whether `viewer` likes it).
    func view(_ stored: StoredPost, viewer: UserID?, in state: State) -> Post {
        let profile = state.influencers[stored.post.influencerID]
        let summary = InfluencerSummary(id: stored.post.influencerID, username: profile?.username ?? "", fullName: profile?.fullName,
                                        profilePicURL: profile?.profilePicURL, externalURL: profile?.externalURL)
        let likes = state.likes.keys.filter { $0.post == stored.id }
        return Post(id: stored.id, productName: stored.post.productName, price: stored.post.price,
                    category: Category(id: stored.post.category, name: state.categories[stored.post.category] ?? ""),
                    displayURL: stored.post.displayURL, groupBuyingURL: stored.post.groupBuyingURL,
                    groupBuyingStart: stored.post.groupBuyingStart, groupBuyingEnd: stored.post.groupBuyingEnd,
                    likesCount: likes.count, postedAt: stored.postedAt, submittedBy: stored.submittedBy, influencer: summary,
                    isLiked: viewer.map { state.likes[Pair(user: $0, post: stored.id)] != nil } ?? false, details: stored.post.details)
    }

    /// The influencer as `viewer` sees it.
    func profile(_ id: InfluencerID, viewer: UserID?, in state: State) -> InfluencerProfile? {
        guard let profile = state.influencers[id] else { return nil }
        let summary = InfluencerSummary(id: id, username: profile.username, fullName: profile.fullName, profilePicURL: profile.profilePicURL,
                                        externalURL: profile.externalURL)
        return InfluencerProfile(summary: summary, biography: profile.biography, followersCount: profile.followersCount, category: nil,
                                 postCount: state.posts.values.filter { $0.post.influencerID == id }.count,
                                 appFollowersCount: state.follows.keys.filter { $0.influencer == id }.count,
                                 isFollowed: viewer.map { state.follows[Follow(user: $0, influencer: id)] != nil } ?? false)
    }

    /// Records that a read was made for `scope`.
    func record(_ scope: RequestScope?) {
        guard let scope else { return }
        state.withLock { $0.scopes.append(scope) }
    }
}

extension Array where Element: Sendable {
    /// The page of `limit` items from `offset`, with the total.
    func paged(offset: Int, limit: Int) -> Page<Element> {
        Page(items: Array(dropFirst(offset).prefix(limit)), total: count)
    }
}
