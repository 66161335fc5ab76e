import Domain
import Foundation
import HTTPServer

/// `/v1/posts/*`: single posts, likes, Top 10.
struct PostsController: Sendable {
    let posts: Posts
    let signedIn: AuthenticatedRoutes
    let categories: CategoryResolver
    let now: @Sendable () -> Date
    let idempotent: IdempotentRequests
    /// The Top 10's posts as JSON, kept between requests.
    let topTen = TopTenRendering()

    var routes: [Route] {
        [
            signedIn.route("GET", "/posts/top10") { request, context, viewer in
                let category = try await request.query["category"].asyncMap { try await categories.resolve($0) }
                let top = try await posts.scoped(context.scope).top10(category: category, viewer: viewer)
                return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", HTTPResponse.jsonContentType)]),
                                    body: topTen.body(top, category: category?.rawValue ?? "", now: now()))
            },
            signedIn.route("GET", "/posts/{id}") { request, context, viewer in
                .json(PostResponse(post: try await posts.scoped(context.scope).post(PostID(rawValue: try request.pathID()), viewer: viewer), now: now(),
                                   includesCaption: true))
            },
            signedIn.permanent("POST", "/posts") { request, context, user in
                try await idempotent.run(request, user: user.userID) {
                    let post = try await PostInput(try request.decodeBody(CreatePostRequest.self)).newPost(categories: categories)
                    return .json(PostResponse(post: try await posts.create(post, by: user), now: now(), includesCaption: true), status: 201)
                }
            },
            signedIn.permanent("PATCH", "/posts/{id}") { request, context, user in
                let id = PostID(rawValue: try request.pathID())
                let changes = try await PostInput(try request.decodeBody(UpdatePostRequest.self)).changes(categories: categories)
                // Writes wait whoever waits; the scope carries only who asked (the audit log's address).
                let writer = posts.scoped(RequestScope(client: context.scope.client))
                return .json(PostResponse(post: try await writer.update(id, changes: changes, by: user), now: now(), includesCaption: true))
            },
            signedIn.permanent("DELETE", "/posts/{id}") { request, context, user in
                try await posts.scoped(RequestScope(client: context.scope.client)).delete(PostID(rawValue: try request.pathID()), by: user)
                return .empty()
            },
            signedIn.permanent("PUT", "/posts/{id}/like") { request, context, user in
                let id = try request.pathID()
                return .json(LikeResponse(postID: id, liked: true, likesCount: try await posts.like(PostID(rawValue: id), by: user)))
            },
            signedIn.permanent("DELETE", "/posts/{id}/like") { request, context, user in
                let id = try request.pathID()
                return .json(LikeResponse(postID: id, liked: false, likesCount: try await posts.unlike(PostID(rawValue: id), by: user)))
            },
        ]
    }
}
