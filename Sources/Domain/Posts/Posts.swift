import Foundation

/// Use cases of single posts and likes: read, submit, edit, delete, like, unlike, the
/// caller's likes and the weekly Top 10.
public struct Posts: Sendable {
    private let posts: any PostRepository
    private let likes: any LikeRepository
    private let now: @Sendable () -> Date

    public init(posts: any PostRepository, likes: any LikeRepository, now: @escaping @Sendable () -> Date) {
        self.posts = posts
        self.likes = likes
        self.now = now
    }

    /// The post as `viewer` sees it; ``DomainError/notFound(_:)`` when missing.
    public func post(_ id: PostID, viewer: Principal) async throws -> Post {
        guard let post = try await posts.post(id: id, viewer: viewer.userID) else { throw DomainError.notFound("post") }
        return post
    }

    /// Submits a post.
    public func create(_ post: NewPost, by submitter: PermanentPrincipal) async throws -> Post {
        let now = now()
        let post = try PostRules.validated(post, now: now)
        return try await posts.create(post, submittedBy: submitter.userID, now: now)
    }

    /// Edits a post (its submitter or an admin).
    public func update(_ id: PostID, changes: PostChanges, by requester: PermanentPrincipal) async throws -> Post {
        guard !changes.isEmpty else { throw DomainError.invalid(field: nil, message: "send at least one field to change") }
        var changes = changes
        changes.productName = try changes.productName.map(PostRules.productName)
        changes.price = try changes.price.map(PostRules.price)
        changes.displayURL = try changes.displayURL.map { try ProfileRules.url($0, field: "display_url") }
        changes.groupBuyingURL = try changes.groupBuyingURL.map { try ProfileRules.url($0, field: "group_buying_url") }
        changes.postURL = try changes.postURL.map { try ProfileRules.url($0, field: "post_url") }
        changes.caption = try changes.caption.map(PostRules.caption)
        changes.hashtags = try changes.hashtags.map(PostRules.hashtags)
        changes.postType = try changes.postType.map(PostRules.postType)
        return try await posts.update(id: id, changes: changes, requester: requester.userID, isAdmin: requester.principal.role == .admin)
    }

    /// Deletes a post and its likes (its submitter or an admin).
    public func delete(_ id: PostID, by requester: PermanentPrincipal) async throws {
        try await posts.delete(id: id, requester: requester.userID, isAdmin: requester.principal.role == .admin)
    }

    /// Likes a post; repeating it changes nothing. Returns the like count.
    public func like(_ id: PostID, by user: PermanentPrincipal) async throws -> Int {
        try await likes.like(post: id, by: user.userID)
    }

    /// Removes a like; repeating it changes nothing. Returns the like count.
    public func unlike(_ id: PostID, by user: PermanentPrincipal) async throws -> Int {
        try await likes.unlike(post: id, by: user.userID)
    }

    /// The caller's liked posts, most recently liked first.
    public func liked(by viewer: Principal, page: Int, limit: Int) async throws -> Page<Post> {
        try await posts.likedPosts(by: viewer.userID, offset: (page - 1) * limit, limit: limit)
    }

    /// The ids of the caller's liked posts, most recently liked first, at most `limit`.
    public func likedIDs(by viewer: Principal, limit: Int) async throws -> [PostID] {
        try await likes.likedPostIDs(by: viewer.userID, limit: limit)
    }

    /// The posts the caller submitted, newest first.
    public func submitted(by viewer: Principal, page: Int, limit: Int) async throws -> Page<Post> {
        try await posts.submittedPosts(by: viewer.userID, offset: (page - 1) * limit, limit: limit)
    }

    /// This week's hottest posts.
    public func top10(category: CategoryID?, viewer: Principal) async throws -> [Post] {
        try await posts.top10(category: category, now: now(), viewer: viewer.userID)
    }
}

extension Posts: RequestScoped {
    /// Reads for the request; likes are writes, and go wherever they go.
    public func scoped(_ scope: RequestScope) -> Posts { Posts(posts: posts.scoped(scope), likes: likes, now: now) }
}
