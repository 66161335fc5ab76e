import Foundation

/// Validation shared by the API and imports.
public enum PostRules {
    /// Product names are 1–200 code points, not only spaces; kept trimmed.
    public static func productName(_ raw: String) throws -> String {
        try TextRules.trimmed(raw, field: "product_name", maximum: 200)
    }

    /// Prices are whole won from 0 to 2,147,483,647 (the current backend's INTEGER column).
    public static func price(_ price: Int) throws -> Int {
        // The current backend's INTEGER column (migration 0029), never below zero.
        guard (0...Int(Int32.max)).contains(price) else { throw DomainError.invalid(field: "price", message: "price must be between 0 and 2147483647") }
        return price
    }

    /// How long a buying window may last, and how far from when a post is made its window
    /// may start. The feed turns date filters into index ranges through the longest window
    /// and the widest lead ever stored (migration 0015, bounds that only widen): one post
    /// with a window from 1900 to 9999 made a date filter read every post, and a schema
    /// fuzzer's posts made `status=ongoing` with a far date range answer 500 (a bound fell
    /// before year 1) or time out.
    public static let longestWindow: TimeInterval = 366 * 86_400

    /// The window must start before it ends, and last at most ``longestWindow``.
    public static func window(start: Date, end: Date) throws {
        guard start < end else { throw DomainError.invalid(field: "group_buying_end", message: "group_buying_end must be after group_buying_start") }
        guard end.timeIntervalSince(start) <= longestWindow else {
            throw DomainError.invalid(field: "group_buying_end", message: "a buying window lasts at most 366 days")
        }
    }

    /// A window made through the API starts within ``longestWindow`` of the post's making
    /// (`postedAt`: now for a new post, the stored time for an edit).
    public static func lead(start: Date, postedAt: Date) throws {
        guard abs(start.timeIntervalSince(postedAt)) <= longestWindow else {
            throw DomainError.invalid(field: "group_buying_start", message: "group_buying_start must be within 366 days of when the post was made")
        }
    }

    /// A new post with every field checked.
    public static func validated(_ post: NewPost) throws -> NewPost {
        var check = RuleCheck()
        let post = checked(post, &check)
        try check.throwFirst()
        return post
    }

    /// `post` with every rule applied, each broken one recorded in `check` (an import row
    /// names them all, where the API answers the first).
    public static func checked(_ post: NewPost, _ check: inout RuleCheck) -> NewPost {
        var post = post
        post.productName = check.run { try productName(post.productName) } ?? post.productName
        post.price = check.run { try post.price.map(price) } ?? post.price
        check.run { try window(start: post.groupBuyingStart, end: post.groupBuyingEnd) }
        post.displayURL = check.run { try post.displayURL.map { try ProfileRules.url($0, field: "display_url") } } ?? post.displayURL
        post.groupBuyingURL = check.run { try post.groupBuyingURL.map { try ProfileRules.url($0, field: "group_buying_url") } } ?? post.groupBuyingURL
        let details = post.details
        post.details.postURL = check.run { try details.postURL.map { try ProfileRules.url($0, field: "post_url") } } ?? details.postURL
        post.details.caption = check.run { try details.caption.map(caption) } ?? details.caption
        post.details.hashtags = check.run { try hashtags(details.hashtags) } ?? details.hashtags
        post.details.postType = check.run { try details.postType.map(postType) } ?? details.postType
        post.details.instagramPostID = check.run { try details.instagramPostID.map(instagramPostID) } ?? details.instagramPostID
        return post
    }
}
