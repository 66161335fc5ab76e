import Domain
import Foundation
import HTTPServer

/// Which API a shape is written for: `/v1`, or the edge functions the 09Market app calls
/// (`/functions/v1`: ids as strings, `category` the Korean label, no `null` where the app's
/// decoder wants a string). One shape per value, spelled twice where the dialects differ.
enum WireDialect: Sendable {
    case v1
    case functions
}

/// The wire form of a post (the app's field names; absent values are explicit `null`s).
/// `caption` is written on single-post answers only (see ``PostDetails/caption``); the
/// functions' dialect has no `status`, `hashtags`, `post_type` or `caption`.
struct PostResponse: JSONWritable {
    let post: Post
    let now: Date
    var rank: Int?
    var includesCaption = false
    var dialect = WireDialect.v1

    func write(to json: inout JSONWriter) {
        let v1 = dialect == .v1
        json.object { json in
            if v1 { json.field("id", post.id.rawValue) } else { json.field("id", String(post.id.rawValue)) }
            json.field("product_name", post.productName)
            json.field("price", post.price)
            if v1 {
                json.field("category", post.category.id.rawValue)
                json.field("category_name", post.category.name)
            } else {
                json.field("category", post.category.name)
            }
            json.field("display_url", post.displayURL)
            json.field("group_buying_url", post.groupBuyingURL)
            json.field("group_buying_start", WireDate.JSON(post.groupBuyingStart))
            json.field("group_buying_end", WireDate.JSON(post.groupBuyingEnd))
            if v1 { json.field("status", PostStatus(start: post.groupBuyingStart, end: post.groupBuyingEnd, now: now).rawValue) }
            json.field("likes_count", post.likesCount)
            json.field("posted_at", WireDate.JSON(post.postedAt))
            json.field("influencer", InfluencerSummaryResponse(summary: post.influencer, dialect: dialect))
            json.field("is_liked", post.isLiked)
            json.field("post_url", post.details.postURL)
            if v1 {
                json.field("hashtags", post.details.hashtags)
                json.field("post_type", post.details.postType)
                if includesCaption { json.field("caption", post.details.caption) }
            }
            if let rank { json.field("rank", rank) }
            // Only the submitter's own list holds hidden posts (/v1/me/posts).
            if v1 && post.hidden { json.field("hidden", true) }
        }
    }
}

/// The influencer inside a post; in the functions' dialect `full_name` and
/// `profile_pic_url` are never null (the app's decoder requires strings): absent ones are "".
struct InfluencerSummaryResponse: JSONWritable {
    let summary: InfluencerSummary
    var dialect = WireDialect.v1

    func write(to json: inout JSONWriter) {
        json.object { json in
            if dialect == .v1 {
                json.field("id", summary.id.rawValue)
                json.field("full_name", summary.fullName)
                json.field("profile_pic_url", summary.profilePicURL)
            } else {
                json.field("id", String(summary.id.rawValue))
                json.field("full_name", summary.fullName ?? "")
                json.field("profile_pic_url", summary.profilePicURL ?? "")
            }
            json.field("username", summary.username)
            json.field("external_url", summary.externalURL)
        }
    }
}

/// A page of anything: `{data, total, page, limit, has_next}`, and `next_cursor` for the
/// feed's keyset sorts. `total` is what offset pages reach (at most the list's reach);
/// `total_matches` says how many match when that is more.
struct PageResponse<Item: JSONWritable>: JSONWritable {
    let data: [Item]
    let total: Int
    let page: Int
    let limit: Int
    let hasNext: Bool
    var nextCursor: String?
    /// False when the number of matches is an estimate (a counted filter past FeedPage.exactTotalLimit).
    var totalIsExact = true
    /// The matches, when more than offset pages reach.
    var totalMatches: Int?

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("data", data)
            json.field("total", total)
            json.field("total_exact", totalIsExact)
            if let totalMatches { json.field("total_matches", totalMatches) }
            json.field("page", page)
            json.field("limit", limit)
            json.field("has_next", hasNext)
            if let nextCursor { json.field("next_cursor", nextCursor) }
        }
    }
}

/// A page of posts.
typealias PostPageResponse = PageResponse<PostResponse>

extension PageResponse {
    /// An offset page of any list: `total` and `has_next` stop where offset pages stop.
    init<Value>(_ page: Page<Value>, window: PageWindow, item: (Value) -> Item) {
        self.init(data: page.items.prefix(window.visible).map(item), total: window.reachable(page.total),
                  page: window.page, limit: window.limit, hasNext: window.hasNext(total: page.total),
                  totalMatches: page.total > window.reach ? page.total : nil)
    }
}

extension PageResponse<PostResponse> {
    /// An offset page of posts.
    init(_ page: Page<Post>, window: PageWindow, now: Date) {
        self.init(page, window: window) { PostResponse(post: $0, now: now) }
    }

    /// A page of a post list (the feed, an influencer's posts). Keyset sorts go on with
    /// `next_cursor` past the offset window; offset pages stop at it, and so do their
    /// `total` and `has_next`. `window` is the one the parameters were read into.
    init(_ page: FeedPage, query: FeedQuery, window: PageWindow, now: Date) {
        let posts = page.items.map { PostResponse(post: $0, now: now) }
        guard query.cursor == nil, page.nextCursor == nil || query.sort == .default else {
            self.init(data: posts, total: page.total, page: query.page, limit: query.limit, hasNext: page.nextCursor != nil,
                      nextCursor: page.nextCursor.map(FeedParameters.encode), totalIsExact: page.totalIsExact)
            return
        }
        self.init(data: Array(posts.prefix(window.visible)), total: window.reachable(page.total), page: window.page, limit: window.limit,
                  hasNext: page.hasMore && window.allowsNext, nextCursor: nil, totalIsExact: page.totalIsExact,
                  totalMatches: page.total > window.reach ? page.total : nil)
    }
}

/// `{data}` of the Top 10.
struct PostListResponse: JSONWritable {
    let data: [PostResponse]

    func write(to json: inout JSONWriter) {
        json.object { json in json.field("data", data) }
    }
}

/// The answer to like / unlike.
struct LikeResponse: JSONWritable {
    let postID: Int
    let liked: Bool
    let likesCount: Int

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("post_id", postID)
            json.field("liked", liked)
            json.field("likes_count", likesCount)
        }
    }
}
