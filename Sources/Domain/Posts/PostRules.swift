import Foundation

/// The rules of a post, one set for every way in: the API, the Supabase surface, the
/// ingest API and imports.
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
    /// and the widest lead stored (migrations 0015, 0037): one post with a window from 1900
    /// to 9999 made a date filter read every post, and a schema fuzzer's posts made
    /// `status=ongoing` with a far date range answer 500 (a bound fell before year 1) or
    /// time out.
    public static let longestWindow: TimeInterval = 366 * 86_400

    /// The window must start before it ends, and last at most ``longestWindow``.
    public static func window(start: Date, end: Date) throws {
        guard start < end else { throw DomainError.invalid(field: "group_buying_end", message: "group_buying_end must be after group_buying_start") }
        guard end.timeIntervalSince(start) <= longestWindow else {
            throw DomainError.invalid(field: "group_buying_end", message: "a buying window lasts at most 366 days")
        }
    }

    /// A window starts within ``longestWindow`` of the post's making (`postedAt`: when its
    /// source posted it, else now for a new post; the stored time for an edit).
    public static func lead(start: Date, postedAt: Date) throws {
        guard abs(start.timeIntervalSince(postedAt)) <= longestWindow else {
            throw DomainError.invalid(field: "group_buying_start", message: "group_buying_start must be within 366 days of when the post was made")
        }
    }

    /// An edit's window: the changed ends with the stored ones, checked as a whole; a new
    /// start within ``longestWindow`` of the stored `postedAt`. Every door that edits a post
    /// (the API, the edge function, the console) checks through here.
    public static func edit(_ changes: PostChanges, start: Date, end: Date, postedAt: Date) throws {
        try window(start: changes.groupBuyingStart ?? start, end: changes.groupBuyingEnd ?? end)
        if let newStart = changes.groupBuyingStart { try lead(start: newStart, postedAt: postedAt) }
    }

    /// The earliest `posted_at` a source may give: Instagram opened on 2010-10-06.
    public static let earliestPostedAt = Date(timeIntervalSince1970: 1_286_323_200)
    /// How far past the server's clock a source's `posted_at` may be (its clock's skew): a
    /// post dated in year 9999 topped `sort=latest` for good.
    public static let postedAtSkew: TimeInterval = 3_600

    /// When a source says it posted, from Instagram's opening to now (and the skew).
    public static func postedAt(_ date: Date, now: Date) throws {
        guard date >= earliestPostedAt, date <= now.addingTimeInterval(postedAtSkew) else {
            throw DomainError.invalid(field: "posted_at", message: "posted_at must lie between 2010-10-06 and now")
        }
    }

    /// A new post with every field checked, made at `now` (unless its details say when it
    /// was posted).
    public static func validated(_ post: NewPost, now: Date) throws -> NewPost {
        var check = RuleCheck()
        let post = checked(post, now: now, &check)
        try check.throwFirst()
        return post
    }

    /// `post` with every rule applied, each broken one recorded in `check` (an import row
    /// names them all, where the API answers the first).
    public static func checked(_ post: NewPost, now: Date, _ check: inout RuleCheck) -> NewPost {
        var post = post
        post.productName = check.run { try productName(post.productName) } ?? post.productName
        post.price = check.run { try post.price.map(price) } ?? post.price
        check.run { try window(start: post.groupBuyingStart, end: post.groupBuyingEnd) }
        // The lead is measured from a posted_at that passed its own rule (else only that one is named).
        let postedAt = post.details.postedAt ?? now
        let postedAtHolds = check.run { () throws -> Bool in
            if let date = post.details.postedAt { try Self.postedAt(date, now: now) }
            return true
        } ?? false
        if postedAtHolds { check.run { try lead(start: post.groupBuyingStart, postedAt: postedAt) } }
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
