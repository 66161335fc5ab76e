import Cryptography
import Domain
import Foundation
import HTTPServer

/// Reads and validates the feed's query parameters; each bad one answers 400 naming it.
enum FeedParameters {
    /// The query of a feed request and its page window (built here once, for the query and
    /// the answer alike); `hashtag` is read where the list offers it (the feed, not an
    /// influencer's posts).
    static func parse(_ request: HTTPRequest, categories: CategoryResolver, readsHashtag: Bool = false) async throws -> (query: FeedQuery, window: PageWindow) {
        var query = FeedQuery()
        if readsHashtag { query.hashtag = try hashtag(request) }
        query.search = try request.searchTerm()
        if let category = request.query["category"] { query.category = try await categories.resolve(category) }
        query.dateRange = try dateRange(request)
        if let status = request.query["status"] {
            guard let value = PostStatus(rawValue: status) else {
                throw APIError.invalidParameter("status", "status must be one of \(PostStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.status = value
        }
        if let sort = request.query["sort"] {
            guard let value = FeedSort(rawValue: sort) else {
                throw APIError.invalidParameter("sort", "sort must be one of \(FeedSort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.sort = value
        }
        if let cursor = request.query["cursor"], !cursor.isEmpty {
            guard let value = decode(cursor) else { throw APIError.invalidParameter("cursor", "cursor is not one this server issued") }
            guard value.sort == query.sort else {
                throw APIError.invalidParameter("cursor", "cursor belongs to sort=\(value.sort.rawValue)")
            }
            query.cursor = value
        }
        if query.hashtag != nil { try hashtagAlone(query) }
        let window = try request.pageWindow(reach: query.offsetReach)
        query.page = window.page
        query.limit = window.limit
        return (query, window)
    }

    private static func hashtag(_ request: HTTPRequest) throws -> String? {
        guard let raw = request.query["hashtag"] else { return nil }
        do {
            return try PostRules.hashtag(raw, field: "hashtag")
        } catch DomainError.invalid(_, let message) {
            throw APIError.invalidParameter("hashtag", message)
        }
    }

    /// A hashtag's list is newest first, and takes no other filter: it is one range of an
    /// index of its own (migration 0019), with its total from a counter.
    private static func hashtagAlone(_ query: FeedQuery) throws {
        let others = [("search", query.search != nil), ("category", query.category != nil), ("date_from", query.dateRange != nil),
                      ("status", query.status != nil), ("sort", query.sort != .default && query.sort != .latest),
                      ("cursor", query.cursor != nil)]
        if let (name, _) = others.first(where: { $0.1 }) {
            throw APIError.invalidParameter(name, "hashtag lists are newest first and combine with no other filter")
        }
    }

    static func dateRange(_ request: HTTPRequest) throws -> ClosedRange<KoreaDay>? {
        let from = request.query["date_from"]
        let to = request.query["date_to"]
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
