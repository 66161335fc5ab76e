import Foundation

/// Posts as viewers see them, and their writes.
public protocol PostRepository: RequestScoped {
    /// The post, with `isLiked` for `viewer`; `nil` when it does not exist.
    func post(id: PostID, viewer: UserID?) async throws -> Post?
    /// Inserts a post; ``DomainError/notFound(_:)`` (`influencer`), `category` invalid,
    /// or ``DomainError/conflict(_:)`` (`post`) for a duplicate.
    func create(_ post: NewPost, submittedBy: UserID, now: Date) async throws -> Post
    /// Applies `changes` if `requester` may (submitter or admin): ``DomainError/forbidden(_:)``
    /// otherwise, ``DomainError/notFound(_:)`` when missing. Atomic with the check.
    func update(id: PostID, changes: PostChanges, requester: UserID, isAdmin: Bool) async throws -> Post
    /// Deletes the post and its likes under the same rule as ``update(id:changes:requester:isAdmin:)``.
    func delete(id: PostID, requester: UserID, isAdmin: Bool) async throws
    /// The user's liked posts, most recently liked first.
    func likedPosts(by user: UserID, offset: Int, limit: Int) async throws -> Page<Post>
    /// The posts `user` submitted, newest first.
    func submittedPosts(by user: UserID, offset: Int, limit: Int) async throws -> Page<Post>
    /// Up to 10 posts whose window started by `now` and ended no earlier than 7 days
    /// before, by likes, then posting time, then id.
    func top10(category: CategoryID?, now: Date, viewer: UserID?) async throws -> [Post]
}

/// Likes, one per user and post; counts move with the rows.
public protocol LikeRepository: Sendable {
    /// Likes the post (idempotent); returns its like count.
    func like(post: PostID, by user: UserID) async throws -> Int
    /// Removes the like (idempotent); returns the post's like count.
    func unlike(post: PostID, by user: UserID) async throws -> Int
    /// The ids of the posts `user` liked, most recently liked first, at most `limit`.
    func likedPostIDs(by user: UserID, limit: Int) async throws -> [PostID]
}
