import Domain
import Foundation
import HTTPServer

/// `GET /v1/posts` (the feed) and `GET /v1/categories` (with counts).
struct FeedController: Sendable {
    let feed: BrowseFeed
    let signedIn: AuthenticatedRoutes
    let categories: CategoryResolver
    let now: @Sendable () -> Date

    var routes: [Route] {
        [
            signedIn.route("GET", "/posts") { request, context, viewer in
                let (query, window) = try await FeedParameters.parse(request, categories: categories, readsHashtag: true)
                return .json(PostPageResponse(try await feed.scoped(context.scope).page(query, viewer: viewer), query: query, window: window, now: now()))
            },
            signedIn.endpoints.route("GET", "/categories") { _, context in
                .json(CategoryCountsResponse(data: try await feed.scoped(context.scope).categories().map(CategoryCountResponse.init)))
            },
        ]
    }
}

/// A category with counts.
struct CategoryCountResponse: JSONWritable {
    let count: CategoryCount

    init(_ count: CategoryCount) { self.count = count }

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", count.category.id.rawValue)
            json.field("name", count.category.name)
            json.field("post_count", count.postCount)
            json.field("open_post_count", count.openPostCount)
        }
    }
}

/// `{"data": [...]}` of `/v1/categories`.
struct CategoryCountsResponse: JSONWritable {
    let data: [CategoryCountResponse]

    func write(to json: inout JSONWriter) {
        json.object { json in json.field("data", data) }
    }
}
