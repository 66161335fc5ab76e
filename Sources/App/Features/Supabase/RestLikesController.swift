import Domain
import Foundation
import HTTPServer

/// `/rest/v1/likes` as PostgREST serves the app's `likes` table under row-level security:
/// a caller reads, inserts and deletes its own rows only. The user comes from the token;
/// a `user_id` naming anyone else is refused as the policy would (403, 42501). Only the
/// filters the app sends are understood (`user_id=eq.`, `post_id=eq.`, `select=post_id`);
/// anything else is PostgREST's 400. Likes are idempotent here as on `/v1` (a repeated
/// insert is 201, not 409).
struct RestLikesController: Sendable {
    let posts: Posts
    let authenticator: Authenticator
    let now: @Sendable () -> Date
    let gate: SupabaseGate

    /// As many rows as Supabase's default `max_rows` returns.
    static let maxRows = 1000

    var routes: [Route] {
        [
            gate.route("GET", "/rest/v1/likes") { request, context in
                let viewer = try authenticator.principal(for: request)
                let filters = try Self.filters(request, allowed: ["select", "user_id"])
                try Self.own(filters["user_id"], viewer)
                guard [nil, "post_id", "*"].contains(request.query["select"]) else {
                    throw Self.badRequest("select must be post_id")
                }
                let ids = try await posts.scoped(context.scope).likedIDs(by: viewer, limit: Self.maxRows)
                return .json(ids.map { LikeRow(userID: request.query["select"] == "post_id" ? nil : viewer.userID, postID: $0.rawValue) })
            },
            gate.route("POST", "/rest/v1/likes") { request, context in
                let user = try authenticator.principal(for: request).permanent()
                let body = try SupabaseBody(request, acceptsSingleElementArray: true)
                try body.refuseNulls(["user_id", "post_id"])
                try Self.own(try body.string("user_id").map { "eq." + $0 }, user.principal)
                guard let post = try body.id("post_id") else { throw Self.badRequest("post_id is required") }
                _ = try await posts.like(PostID(rawValue: post), by: user)
                return Self.answer(request, status: 201, rows: [LikeRow(userID: user.userID, postID: post, createdAt: now())])
            },
            gate.route("DELETE", "/rest/v1/likes") { request, context in
                let user = try authenticator.principal(for: request).permanent()
                let filters = try Self.filters(request, allowed: ["user_id", "post_id"])
                try Self.own(filters["user_id"], user.principal)
                guard let post = filters["post_id"].flatMap(Self.equalID) else { throw Self.badRequest("filter with post_id=eq.<id>") }
                let id = PostID(rawValue: post)
                do {
                    let existed = Self.returnsRepresentation(request) ? try await posts.scoped(context.scope).post(id, viewer: user.principal).isLiked : false
                    _ = try await posts.unlike(id, by: user)
                    return Self.answer(request, status: 204, rows: existed ? [LikeRow(userID: user.userID, postID: post)] : [])
                } catch DomainError.notFound {
                    return Self.answer(request, status: 204, rows: [])  // no such row: nothing deleted
                }
            },
        ]
    }

    /// The query's parameters, each one PostgREST would understand here.
    private static func filters(_ request: HTTPRequest, allowed: Set<String>) throws -> [String: String] {
        if let unknown = request.query.keys.sorted().first(where: { !allowed.contains($0) && $0 != "apikey" }) {
            throw badRequest("unsupported filter or parameter: \(unknown)")
        }
        return request.query
    }

    /// `user_id=eq.<the caller>` (or no filter); anyone else's rows are out of reach.
    private static func own(_ filter: String?, _ principal: Principal) throws {
        guard let filter else { return }
        guard filter.hasPrefix("eq."), UUID(uuidString: String(filter.dropFirst(3))) != nil else {
            throw badRequest("user_id takes eq.<uuid>")
        }
        guard String(filter.dropFirst(3)).lowercased() == principal.userID.description.lowercased() else {
            throw DomainError.forbidden("a user's likes are their own")
        }
    }

    private static func equalID(_ filter: String) -> Int? {
        guard filter.hasPrefix("eq."), let id = Int(filter.dropFirst(3)), id > 0 else { return nil }
        return id
    }

    static func badRequest(_ message: String) -> APIError {
        APIError(status: 400, code: ErrorCodes.invalidFilter, message: message)
    }

    private static func returnsRepresentation(_ request: HTTPRequest) -> Bool {
        (request.headers["Prefer"] ?? "").split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "return=representation" }
    }

    /// `Prefer: return=representation` gets the rows (200 for a delete); otherwise no body.
    private static func answer(_ request: HTTPRequest, status: Int, rows: [LikeRow]) -> HTTPResponse {
        guard returnsRepresentation(request) else { return .empty(status: status) }
        return .json(rows, status: status == 204 ? 200 : status)
    }
}

/// A row of `likes` (`post_id` as the text the app's table kept).
struct LikeRow: JSONWritable {
    var userID: UserID?
    let postID: Int
    var createdAt: Date?

    func write(to json: inout JSONWriter) {
        json.object { json in
            if let userID { json.field("user_id", userID.description) }
            json.field("post_id", String(postID))
            if let createdAt { json.field("created_at", WireDate.JSON(createdAt, koreaOffset: false)) }
        }
    }
}
