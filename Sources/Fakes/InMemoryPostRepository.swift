import Domain
import Foundation

/// Posts and likes of an ``InMemoryCatalog``, for the ``Posts`` use cases' unit tests.
public struct InMemoryPostRepository: PostRepository, LikeRepository {
    public let catalog: InMemoryCatalog
    private let scope: RequestScope?

    public init(_ catalog: InMemoryCatalog, scope: RequestScope? = nil) {
        self.catalog = catalog
        self.scope = scope
    }

    public func scoped(_ scope: RequestScope) -> InMemoryPostRepository { InMemoryPostRepository(catalog, scope: scope) }

    public func post(id: PostID, viewer: UserID?) async throws -> Post? {
        catalog.record(scope)
        return catalog.state.withLock { state in state.posts[id].map { catalog.view($0, viewer: viewer, in: state) } }
    }

    public func create(_ post: NewPost, submittedBy: UserID, now: Date) async throws -> Post {
        try catalog.state.withLock { state in
            guard state.influencers[post.influencerID] != nil else { throw DomainError.notFound("influencer") }
            guard state.categories[post.category] != nil else { throw DomainError.invalid(field: "category", message: "unknown category") }
            let duplicate = state.posts.values.contains {
                $0.post.influencerID == post.influencerID && $0.post.productName == post.productName
                    && $0.post.groupBuyingStart == post.groupBuyingStart && $0.post.groupBuyingEnd == post.groupBuyingEnd
            }
            guard !duplicate else { throw DomainError.conflict("post") }
            let stored = InMemoryCatalog.StoredPost(post: post, id: PostID(rawValue: state.nextPost), submittedBy: submittedBy, postedAt: now)
            state.nextPost += 1
            state.posts[stored.id] = stored
            return catalog.view(stored, viewer: submittedBy, in: state)
        }
    }

    public func update(id: PostID, changes: PostChanges, requester: UserID, isAdmin: Bool) async throws -> Post {
        try catalog.state.withLock { state in
            guard var stored = state.posts[id] else { throw DomainError.notFound("post") }
            guard isAdmin || stored.submittedBy == requester else { throw DomainError.forbidden("post") }
            if let name = changes.productName { stored.post.productName = name }
            if let price = changes.price { stored.post.price = price }
            if let category = changes.category { stored.post.category = category }
            if let start = changes.groupBuyingStart { stored.post.groupBuyingStart = start }
            if let end = changes.groupBuyingEnd { stored.post.groupBuyingEnd = end }
            guard stored.post.groupBuyingStart <= stored.post.groupBuyingEnd else {
                throw DomainError.invalid(field: "group_buying_end", message: "group_buying_end must not be before group_buying_start")
            }
            if let url = changes.displayURL { stored.post.displayURL = url }
            if let url = changes.groupBuyingURL { stored.post.groupBuyingURL = url }
            if let caption = changes.caption { stored.post.details.caption = caption }
            if let hashtags = changes.hashtags { stored.post.details.hashtags = hashtags }
            state.posts[id] = stored
            return catalog.view(stored, viewer: requester, in: state)
        }
    }

    public func delete(id: PostID, requester: UserID, isAdmin: Bool) async throws {
        try catalog.state.withLock { state in
            guard let stored = state.posts[id] else { throw DomainError.notFound("post") }
            guard isAdmin || stored.submittedBy == requester else { throw DomainError.forbidden("post") }
            state.posts[id] = nil
            state.likes = state.likes.filter { $0.key.post != id }
        }
    }

    public func likedPosts(by user: UserID, offset: Int, limit: Int) async throws -> Page<Post> {
        catalog.record(scope)
        return catalog.state.withLock { state in
            state.likes.filter { $0.key.user == user }.sorted { $0.value > $1.value }
                .compactMap { state.posts[$0.key.post].map { catalog.view($0, viewer: user, in: state) } }
                .paged(offset: offset, limit: limit)
        }
    }

    public func submittedPosts(by user: UserID, offset: Int, limit: Int) async throws -> Page<Post> {
        catalog.record(scope)
        return catalog.state.withLock { state in
            state.posts.values.filter { $0.submittedBy == user }.sorted { ($0.postedAt, $0.id.rawValue) > ($1.postedAt, $1.id.rawValue) }
                .map { catalog.view($0, viewer: user, in: state) }
                .paged(offset: offset, limit: limit)
        }
    }

    public func top10(category: CategoryID?, now: Date, viewer: UserID?) async throws -> [Post] {
        catalog.record(scope)
        return catalog.state.withLock { state in
            let weekAgo = now.addingTimeInterval(-7 * 86_400)
            return state.posts.values
                .filter { $0.post.groupBuyingStart <= now && $0.post.groupBuyingEnd >= weekAgo && (category == nil || $0.post.category == category) }
                .map { catalog.view($0, viewer: viewer, in: state) }
                .sorted { ($0.likesCount, $0.postedAt, -$0.id.rawValue) > ($1.likesCount, $1.postedAt, -$1.id.rawValue) }
                .prefix(10).map { $0 }
        }
    }

    public func like(post: PostID, by user: UserID) async throws -> Int {
        try catalog.state.withLock { state in
            guard state.posts[post] != nil else { throw DomainError.notFound("post") }
            let pair = InMemoryCatalog.Pair(user: user, post: post)
            if state.likes[pair] == nil {
                state.tick += 1
                state.likes[pair] = state.tick
            }
            return state.likes.keys.filter { $0.post == post }.count
        }
    }

    public func unlike(post: PostID, by user: UserID) async throws -> Int {
        try catalog.state.withLock { state in
            guard state.posts[post] != nil else { throw DomainError.notFound("post") }
            state.likes[InMemoryCatalog.Pair(user: user, post: post)] = nil
            return state.likes.keys.filter { $0.post == post }.count
        }
    }

    public func likedPostIDs(by user: UserID, limit: Int) async throws -> [PostID] {
        catalog.state.withLock { state in
            state.likes.filter { $0.key.user == user }.sorted { $0.value > $1.value }.prefix(limit).map(\.key.post)
        }
    }
}
