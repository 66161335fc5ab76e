import Data
import Domain
import Foundation

/// `GET /v1/posts` (the feed) and `GET /v1/categories` (with counts).
struct FeedController: Sendable {
    let feed: BrowseFeed
    let authenticator: Authenticator
    let categories: CategoryResolver
    let now: @Sendable () -> Date

    var routes: [Route] {
        let authenticated = AuthenticatedRoutes(authenticator: authenticator)
        return [
            authenticated.route("GET", "/posts") { request, viewer in
                let query = try await FeedParameters.parse(request, categories: categories)
                return .json(Self.response(try await feed.page(query, viewer: viewer), query: query, now: now()))
            },
            Route("GET", "/categories") { _ in
                .json(CategoryCountsResponse(data: try await feed.categories().map(CategoryCountResponse.init)))
            },
        ]
    }

    static func response(_ page: FeedPage, query: FeedQuery, now: Date) -> PostPageResponse {
        let hasNext = query.cursor != nil || query.sort != .default && page.nextCursor != nil
            ? page.nextCursor != nil
            : PageWindow(page: query.page, limit: query.limit).hasNext(total: page.total)
        return PostPageResponse(data: page.items.map { PostResponse(post: $0, now: now) }, total: page.total, page: query.page,
                                limit: query.limit, hasNext: hasNext, nextCursor: page.nextCursor.map(FeedParameters.encode))
    }
}

/// Reads and validates the feed's query parameters; each bad one answers 400 naming it.
enum FeedParameters {
    static func parse(_ request: HTTPRequest, categories: CategoryResolver) async throws -> FeedQuery {
        var query = FeedQuery()
        let window = try request.pageWindow()
        query.page = window.page
        query.limit = window.limit
        if let category = request.query["category"], !category.isEmpty { query.category = try await categories.resolve(category) }
        if let search = request.query["search"]?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
            guard search.count <= 100 else { throw APIError.invalidParameter("search", "search must be at most 100 characters") }
            query.search = search
        }
        query.dateRange = try dateRange(request)
        if let status = request.query["status"], !status.isEmpty {
            guard let value = PostStatus(rawValue: status) else {
                throw APIError.invalidParameter("status", "status must be one of \(PostStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.status = value
        }
        if let sort = request.query["sort"], !sort.isEmpty {
            guard let value = FeedSort(rawValue: sort) else {
                throw APIError.invalidParameter("sort", "sort must be one of \(FeedSort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.sort = value
        }
        if let cursor = request.query["cursor"], !cursor.isEmpty {
            guard let value = decode(cursor) else { throw APIError.invalidParameter("cursor", "cursor is not one this server issued") }
            query.cursor = value
        }
        return query
    }

    private static func dateRange(_ request: HTTPRequest) throws -> ClosedRange<KoreaDay>? {
        let from = request.query["date_from"].flatMap { $0.isEmpty ? nil : $0 }
        let to = request.query["date_to"].flatMap { $0.isEmpty ? nil : $0 }
        switch (from, to) {
        case (nil, nil): return nil
        case (nil, _): throw APIError.invalidParameter("date_from", "date_from and date_to come together")
        case (_, nil): throw APIError.invalidParameter("date_to", "date_from and date_to come together")
        case (let from?, let to?):
            guard let start = KoreaDay(from) else { throw APIError.invalidParameter("date_from", "date_from must be YYYY-MM-DD") }
            guard let end = KoreaDay(to) else { throw APIError.invalidParameter("date_to", "date_to must be YYYY-MM-DD") }
            guard start <= end else { throw APIError.invalidParameter("date_to", "date_to must not be before date_from") }
            return start...end
        }
    }

    /// `sort:key:id` in base64url.
    static func encode(_ cursor: FeedCursor) -> String {
        Base64URL.encode(Data("\(cursor.sort.rawValue):\(cursor.key):\(cursor.id)".utf8))
    }

    static func decode(_ text: String) -> FeedCursor? {
        guard let data = Base64URL.decode(text) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ":")
        guard parts.count == 3, let sort = FeedSort(rawValue: String(parts[0])), sort != .default,
              let key = Double(parts[1]), key.isFinite, let id = Int(parts[2]), id > 0 else { return nil }
        return FeedCursor(sort: sort, key: key, id: id)
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
