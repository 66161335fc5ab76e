import Domain
import Foundation
import HTTPServer

/// `/functions/v1/posts?action=…`: the app's posts edge function, as a thin adapter over
/// the same use cases as `/v1/posts` (and their rules: writes need a permanent user, edits
/// their submitter). Parameters and shapes as the function answers: ids as strings,
/// `category` the Korean label, `limit` clamped to 1–50, the list `{data, total, page}`,
/// Top 10 a bare array, the schedule `{data, meta}`.
struct FunctionsPostsController: Sendable {
    let posts: Posts
    let feed: BrowseFeed
    let follows: Follows
    let authenticator: Authenticator
    let categories: CategoryResolver
    let now: @Sendable () -> Date
    let gate: SupabaseGate

    var routes: [Route] {
        [
            gate.route("GET", "/functions/v1/posts") { request, context in
                let viewer = try authenticator.principal(for: request)
                let query = try await Self.listQuery(request, categories: categories)
                switch request.query["action"] {
                case "list": return try await list(request, query: query, viewer: viewer, scope: context.scope)
                case "top10":
                    let top = try await posts.scoped(context.scope).top10(category: nil, viewer: viewer)
                    let now = now()
                    return .json(top.enumerated().map { PostResponse(post: $1, now: now, rank: $0 + 1, dialect: .functions) })
                case "schedule": return try await schedule(request, viewer: viewer, scope: context.scope)
                default: throw Self.unknownAction
                }
            },
            gate.route("POST", "/functions/v1/posts") { request, context in
                guard request.query["action"] == "create" else { throw Self.unknownAction }
                return try await create(request, by: try authenticator.principal(for: request).permanent())
            },
            gate.route("PUT", "/functions/v1/posts") { request, context in
                guard request.query["action"] == "update" else { throw Self.unknownAction }
                return try await update(request, by: try authenticator.principal(for: request).permanent())
            },
            gate.route("DELETE", "/functions/v1/posts") { request, context in
                guard request.query["action"] == "delete" else { throw Self.unknownAction }
                let user = try authenticator.principal(for: request).permanent()
                guard let id = try SupabaseBody(request).id("post_id") else { throw Self.missing("post_id") }
                try await posts.delete(PostID(rawValue: id), by: user)
                return .empty()
            },
        ]
    }

    static let unknownAction = APIError(status: 400, code: SupabaseErrorCodes.badRequest, message: "Unknown action or method")

    static func missing(_ field: String) -> APIError {
        APIError(status: 400, code: ErrorCodes.missingRequiredField, message: "'\(field)' is required", field: field)
    }

    /// `page` from 1 and `limit` 1–50 as the function reads them: unparsable means the
    /// default, out of range is clamped.
    static func window(_ request: HTTPRequest, reach: Int = FeedPage.offsetLimit) throws -> PageWindow {
        let page = max(1, request.query["page"].flatMap { Int($0) } ?? 1)
        let limit = min(50, max(1, request.query["limit"].flatMap { Int($0) } ?? 20))
        return try PageWindow(page: page, limit: limit, reach: reach)
    }

    /// The list's filters, read (and a malformed one refused) whatever the action: a
    /// parameter is never silently wrong.
    private static func listQuery(_ request: HTTPRequest, categories: CategoryResolver) async throws -> FeedQuery {
        var query = FeedQuery()
        query.search = try request.searchTerm()
        if let category = request.query["category"], !category.isEmpty { query.category = try await categories.resolve(category) }
        for name in ["date_from", "date_to", "start_date", "end_date"] {
            if let text = request.query[name], KoreaDay(text) == nil { throw APIError.invalidParameter(name, "\(name) must be YYYY-MM-DD") }
        }
        if request.query["date_from"] != nil && request.query["date_to"] != nil { query.dateRange = try FeedParameters.dateRange(request) }
        return query
    }

    private func list(_ request: HTTPRequest, query: FeedQuery, viewer: Principal, scope: RequestScope) async throws -> HTTPResponse {
        var query = query
        let window = try Self.window(request, reach: query.offsetReach)
        query.page = window.page
        query.limit = window.limit
        let found = try await feed.scoped(scope).page(query, viewer: viewer)
        let now = now()
        // The app pages until it holds `total`: the total offset pages reach, the last one cut there.
        return .json(FunctionsPage(data: found.items.prefix(window.visible).map { PostResponse(post: $0, now: now, dialect: .functions) },
                                   total: window.reachable(found.total), page: window.page))
    }

    private func schedule(_ request: HTTPRequest, viewer: Principal, scope: RequestScope) async throws -> HTTPResponse {
        guard let start = request.query["start_date"], let end = request.query["end_date"] else {
            throw APIError(status: 400, code: ErrorCodes.invalidParameter, message: "start_date and end_date are required")
        }
        guard let first = KoreaDay(start), let last = KoreaDay(end), first <= last else {
            throw APIError(status: 400, code: ErrorCodes.invalidParameter, message: "start_date and end_date must be YYYY-MM-DD, in order")
        }
        let window = try Self.window(request)
        let found = try await follows.scoped(scope).schedule(first...last, viewer: viewer, page: window.page, limit: window.limit)
        let now = now()
        return .json(FunctionsSchedule(data: found.items.map { PostResponse(post: $0, now: now, dialect: .functions) }, page: window.page,
                                       limit: window.limit, total: found.total))
    }

    private func create(_ request: HTTPRequest, by user: PermanentPrincipal) async throws -> HTTPResponse {
        let body = try SupabaseBody(request)
        for field in ["influencer_id", "product_name", "price", "category", "group_buying_start", "group_buying_end"] where !body.has(field) {
            throw Self.missing(field)
        }
        let input = PostInput(influencerID: try body.id("influencer_id") ?? 0, productName: try body.required("product_name"),
                              price: try body.integer("price"), category: try body.required("category"),
                              groupBuyingStart: try body.required("group_buying_start"), groupBuyingEnd: try body.required("group_buying_end"),
                              displayURL: try body.string("display_url"))
        let post = try await input.newPost(categories: categories)
        return .json(PostResponse(post: try await posts.create(post, by: user), now: now(), dialect: .functions), status: 201)
    }

    private func update(_ request: HTTPRequest, by user: PermanentPrincipal) async throws -> HTTPResponse {
        let body = try SupabaseBody(request)
        guard let id = try body.id("post_id") else { throw Self.missing("post_id") }
        let input = PostInput(productName: try body.string("product_name"), price: try body.integer("price"), category: try body.string("category"),
                              groupBuyingStart: try body.string("group_buying_start"), groupBuyingEnd: try body.string("group_buying_end"))
        let changes = try await input.changes(categories: categories)
        guard changes.productName != nil || changes.price != nil || changes.category != nil || changes.groupBuyingStart != nil
            || changes.groupBuyingEnd != nil else {
            throw APIError(status: 400, code: ErrorCodes.noFieldsToUpdate, message: "No fields to update")
        }
        return .json(PostResponse(post: try await posts.update(PostID(rawValue: id), changes: changes, by: user), now: now(), dialect: .functions))
    }
}
