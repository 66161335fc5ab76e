import Domain
import Foundation

/// The feed of an ``InMemoryCatalog``: every filter of ``FeedQuery`` applied to every post
/// (the database walks indexes; the answer is the same), the sorts as documented, offset
/// pages with exact totals. The default order's daily shuffle is the ids' order here: the
/// use cases do not depend on which permutation a day has.
public struct InMemoryFeedRepository: FeedRepository {
    public let catalog: InMemoryCatalog
    private let scope: RequestScope?

    public init(_ catalog: InMemoryCatalog, scope: RequestScope? = nil) {
        self.catalog = catalog
        self.scope = scope
    }

    public func scoped(_ scope: RequestScope) -> InMemoryFeedRepository { InMemoryFeedRepository(catalog, scope: scope) }

    public func prepare(day: KoreaDay, within budget: Duration?) async throws -> Bool {
        catalog.state.withLock { $0.preparedDays.append(day) }
        return true
    }

    public func discardDays(before day: KoreaDay) async throws {
        catalog.state.withLock { $0.preparedDays.removeAll { $0 < day } }
    }

    public func tightenWindowBounds() async throws -> Bool { false }

    public func page(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?) async throws -> FeedPage {
        catalog.record(scope)
        let matches = catalog.state.withLock { state in
            state.posts.values.map { catalog.view($0, viewer: viewer, in: state) }.filter { Self.matches($0, query, now: now) }
        }
        let ordered = Self.ordered(matches, query, now: now)
        let offset = (query.page - 1) * query.limit
        let items = Array(ordered.dropFirst(offset).prefix(query.limit))
        return FeedPage(items: items, total: ordered.count, hasMore: ordered.count > offset + items.count, nextCursor: nil)
    }

    public func categoryCounts(day: KoreaDay, now: Date) async throws -> [CategoryCount] {
        catalog.record(scope)
        return catalog.state.withLock { state in
            contractCategories.map { id, name in
                let posts = state.posts.values.filter { $0.post.category.rawValue == id }
                return CategoryCount(category: Category(id: CategoryID(rawValue: id), name: name), postCount: posts.count,
                                     openPostCount: posts.filter { $0.post.groupBuyingEnd >= now }.count)
            }
        }
    }

    static func matches(_ post: Post, _ query: FeedQuery, now: Date) -> Bool {
        if let category = query.category, post.category.id != category { return false }
        if let influencer = query.influencer, post.influencer.id != influencer { return false }
        if let status = query.status, PostStatus(start: post.groupBuyingStart, end: post.groupBuyingEnd, now: now) != status { return false }
        if let days = query.dateRange, post.groupBuyingEnd < days.lowerBound.start || post.groupBuyingStart >= days.upperBound.end { return false }
        if let hashtag = query.hashtag, !post.details.hashtags.contains(hashtag) { return false }
        if let search = query.search?.lowercased() {
            let fields = [post.productName, post.influencer.username, post.influencer.fullName ?? ""]
            if !fields.contains(where: { $0.lowercased().contains(search) }) { return false }
        }
        return true
    }

    static func ordered(_ posts: [Post], _ query: FeedQuery, now: Date) -> [Post] {
        switch query.sort {
        case .latest: return posts.sorted { ($0.postedAt, $0.id.rawValue) > ($1.postedAt, $1.id.rawValue) }
        case .popular: return posts.sorted { ($0.likesCount, $0.id.rawValue) > ($1.likesCount, $1.id.rawValue) }
        case .endingSoon:
            return posts.filter { $0.groupBuyingEnd >= now }.sorted { ($0.groupBuyingEnd, $0.id.rawValue) < ($1.groupBuyingEnd, $1.id.rawValue) }
        case .default:
            let open = posts.filter { $0.groupBuyingEnd >= now }.sorted { $0.id.rawValue < $1.id.rawValue }
            let closed = posts.filter { $0.groupBuyingEnd < now }.sorted { ($0.groupBuyingEnd, $0.id.rawValue) > ($1.groupBuyingEnd, $1.id.rawValue) }
            return open + closed
        }
    }
}

/// Influencers of an ``InMemoryCatalog``.
public struct InMemoryInfluencerRepository: InfluencerRepository {
    public let catalog: InMemoryCatalog
    private let scope: RequestScope?

    public init(_ catalog: InMemoryCatalog, scope: RequestScope? = nil) {
        self.catalog = catalog
        self.scope = scope
    }

    public func scoped(_ scope: RequestScope) -> InMemoryInfluencerRepository { InMemoryInfluencerRepository(catalog, scope: scope) }

    public func search(_ search: String?, viewer: UserID?, offset: Int, limit: Int) async throws -> Page<InfluencerProfile> {
        catalog.record(scope)
        let needle = search?.lowercased()
        return catalog.state.withLock { state in
            state.influencers.keys.compactMap { catalog.profile($0, viewer: viewer, in: state) }
                .filter { needle == nil || $0.summary.username.lowercased().contains(needle!) || ($0.summary.fullName ?? "").lowercased().contains(needle!) }
                .sorted { ($0.followersCount, -$0.summary.id.rawValue) > ($1.followersCount, -$1.summary.id.rawValue) }
                .paged(offset: offset, limit: limit)
        }
    }

    public func influencer(id: InfluencerID, viewer: UserID?) async throws -> InfluencerProfile? {
        catalog.record(scope)
        return catalog.state.withLock { catalog.profile(id, viewer: viewer, in: $0) }
    }
}

/// Follows of an ``InMemoryCatalog``.
public struct InMemoryFollowRepository: FollowRepository {
    public let catalog: InMemoryCatalog
    private let scope: RequestScope?

    public init(_ catalog: InMemoryCatalog, scope: RequestScope? = nil) {
        self.catalog = catalog
        self.scope = scope
    }

    public func scoped(_ scope: RequestScope) -> InMemoryFollowRepository { InMemoryFollowRepository(catalog, scope: scope) }

    public func follow(_ influencer: InfluencerID, by user: UserID, limit: Int) async throws -> Int {
        try catalog.state.withLock { state in
            guard state.influencers[influencer] != nil else { throw DomainError.notFound("influencer") }
            let follow = InMemoryCatalog.Follow(user: user, influencer: influencer)
            if state.follows[follow] == nil {
                guard state.follows.keys.filter({ $0.user == user }).count < limit else {
                    throw DomainError.limitReached("follow", message: "An account follows at most \(limit) influencers.")
                }
                state.tick += 1
                state.follows[follow] = state.tick
            }
            return state.follows.keys.filter { $0.influencer == influencer }.count
        }
    }

    public func unfollow(_ influencer: InfluencerID, by user: UserID) async throws -> Int {
        catalog.state.withLock { state in
            state.follows[InMemoryCatalog.Follow(user: user, influencer: influencer)] = nil
            return state.follows.keys.filter { $0.influencer == influencer }.count
        }
    }

    public func followed(by user: UserID, offset: Int, limit: Int) async throws -> Page<InfluencerProfile> {
        catalog.record(scope)
        return catalog.state.withLock { state in
            state.follows.filter { $0.key.user == user }.sorted { $0.value > $1.value }
                .compactMap { catalog.profile($0.key.influencer, viewer: user, in: state) }
                .paged(offset: offset, limit: limit)
        }
    }

    public func schedule(of user: UserID, from: Date, to: Date, offset: Int, limit: Int) async throws -> Page<Post> {
        catalog.record(scope)
        return catalog.state.withLock { state in
            let followed = Set(state.follows.keys.filter { $0.user == user }.map(\.influencer))
            return state.posts.values
                .filter { followed.contains($0.post.influencerID) && $0.post.groupBuyingEnd >= from && $0.post.groupBuyingStart < to }
                .map { catalog.view($0, viewer: user, in: state) }
                .sorted { ($0.groupBuyingEnd, $0.id.rawValue) < ($1.groupBuyingEnd, $1.id.rawValue) }
                .paged(offset: offset, limit: limit)
        }
    }
}
