import Foundation

/// A post's identifier.
public struct PostID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The database id.
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The id as text.
    public var description: String { String(rawValue) }
}

/// An influencer's identifier.
public struct InfluencerID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The database id.
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The id as text.
    public var description: String { String(rawValue) }
}

/// The influencer fields shown with a post.
public struct InfluencerSummary: Sendable, Equatable {
    /// The identifier.
    public let id: InfluencerID
    /// Instagram username.
    public let username: String
    /// Display name.
    public let fullName: String?
    /// Profile picture URL.
    public let profilePicURL: String?
    /// Link in the profile.
    public let externalURL: String?

    public init(id: InfluencerID, username: String, fullName: String?, profilePicURL: String?, externalURL: String?) {
        self.id = id
        self.username = username
        self.fullName = fullName
        self.profilePicURL = profilePicURL
        self.externalURL = externalURL
    }
}

/// Where a post's buying window stands at a given instant.
public enum PostStatus: String, Sendable, CaseIterable {
    /// The window has not started.
    case upcoming
    /// Open with at least 24 hours left.
    case ongoing
    /// Open with less than 24 hours left.
    case closingSoon = "closing_soon"
    /// The window has ended.
    case closed

    /// How close to its end an open window is closing soon: the one definition, which the
    /// database's status filters use too.
    public static let closingSoonWindow: TimeInterval = 86_400

    /// The status of the window `start...end` at `now`.
    public init(start: Date, end: Date, now: Date) {
        if now < start {
            self = .upcoming
        } else if now > end {
            self = .closed
        } else {
            self = end.timeIntervalSince(now) < Self.closingSoonWindow ? .closingSoon : .ongoing
        }
    }
}

/// A group-buying offer of an influencer, as a given viewer sees it.
public struct Post: Sendable, Equatable {
    /// The identifier.
    public let id: PostID
    /// What is on offer.
    public let productName: String
    /// Price in won, when known.
    public let price: Int?
    public let category: Category
    /// Image URL.
    public let displayURL: String?
    /// Where to buy.
    public let groupBuyingURL: String?
    /// When the buying window opens.
    public let groupBuyingStart: Date
    /// When the buying window closes.
    public let groupBuyingEnd: Date
    /// Number of likes.
    public let likesCount: Int
    /// When the post was submitted.
    public let postedAt: Date
    /// Who submitted the post, if the account still exists.
    public let submittedBy: UserID?
    /// The influencer offering it.
    public let influencer: InfluencerSummary
    /// Whether the viewer likes the post.
    public let isLiked: Bool
    /// What it carries from Instagram (``PostDetails/caption`` on single-post reads only).
    public let details: PostDetails
    /// Hidden by an operator: out of every feed, kept for its submitter (their own list
    /// shows it, marked) and the console.
    public var hidden = false

    public init(id: PostID, productName: String, price: Int?, category: Category, displayURL: String?, groupBuyingURL: String?,
                groupBuyingStart: Date, groupBuyingEnd: Date, likesCount: Int, postedAt: Date, submittedBy: UserID?,
                influencer: InfluencerSummary, isLiked: Bool, details: PostDetails = PostDetails()) {
        self.id = id
        self.productName = productName
        self.price = price
        self.category = category
        self.displayURL = displayURL
        self.groupBuyingURL = groupBuyingURL
        self.groupBuyingStart = groupBuyingStart
        self.groupBuyingEnd = groupBuyingEnd
        self.likesCount = likesCount
        self.postedAt = postedAt
        self.submittedBy = submittedBy
        self.influencer = influencer
        self.isLiked = isLiked
        self.details = details
    }
}

extension Post {
    /// This post with a newer like count, as `isLiked` says a viewer sees it.
    public func seen(likesCount: Int, isLiked: Bool) -> Post {
        Post(id: id, productName: productName, price: price, category: category, displayURL: displayURL, groupBuyingURL: groupBuyingURL,
             groupBuyingStart: groupBuyingStart, groupBuyingEnd: groupBuyingEnd, likesCount: likesCount, postedAt: postedAt,
             submittedBy: submittedBy, influencer: influencer, isLiked: isLiked, details: details)
    }

    /// Whether `other` is this post at another like count or as another viewer sees it:
    /// every field but `likesCount` and `isLiked` equal. In place: `seen(…) ==` copies a
    /// post (a retain and a release of each of its strings, on objects every thread shares),
    /// which was 2.4 % of a Top 10 request's server CPU (perf).
    public func isSameListing(as other: Post) -> Bool {
        id == other.id && productName == other.productName && price == other.price && category == other.category
            && displayURL == other.displayURL && groupBuyingURL == other.groupBuyingURL
            && groupBuyingStart == other.groupBuyingStart && groupBuyingEnd == other.groupBuyingEnd && postedAt == other.postedAt
            && submittedBy == other.submittedBy && influencer == other.influencer && details == other.details && hidden == other.hidden
    }
}

/// The fields of a new post, validated by ``PostRules``.
public struct NewPost: Sendable, Equatable {
    /// The influencer offering it.
    public var influencerID: InfluencerID
    /// What is on offer.
    public var productName: String
    /// Price in won, when known.
    public var price: Int?
    public var category: CategoryID
    /// When the buying window opens.
    public var groupBuyingStart: Date
    /// When the buying window closes.
    public var groupBuyingEnd: Date
    /// Image URL.
    public var displayURL: String?
    /// Where to buy.
    public var groupBuyingURL: String?
    /// What it carries from Instagram.
    public var details: PostDetails

    public init(influencerID: InfluencerID, productName: String, price: Int?, category: CategoryID, groupBuyingStart: Date,
                groupBuyingEnd: Date, displayURL: String?, groupBuyingURL: String?, details: PostDetails = PostDetails()) {
        self.influencerID = influencerID
        self.productName = productName
        self.price = price
        self.category = category
        self.groupBuyingStart = groupBuyingStart
        self.groupBuyingEnd = groupBuyingEnd
        self.displayURL = displayURL
        self.groupBuyingURL = groupBuyingURL
        self.details = details
    }
}

/// Changes to a post; `nil` leaves a field as it is.
public struct PostChanges: Sendable, Equatable {
    /// What is on offer.
    public var productName: String?
    /// Price in won, when known.
    public var price: Int?
    public var category: CategoryID?
    /// When the buying window opens.
    public var groupBuyingStart: Date?
    /// When the buying window closes.
    public var groupBuyingEnd: Date?
    /// Image URL.
    public var displayURL: String?
    /// Where to buy.
    public var groupBuyingURL: String?
    /// The Instagram post.
    public var postURL: String?
    /// The caption.
    public var caption: String?
    /// Replaces every hashtag.
    public var hashtags: [String]?
    /// Instagram's kind of post.
    public var postType: String?

    public init() {}

    /// Whether nothing would change.
    public var isEmpty: Bool { self == PostChanges() }
}

/// One page of results.
public struct Page<Item: Sendable>: Sendable {
    /// The items of this page.
    public let items: [Item]
    /// How many items match in all.
    public let total: Int

    public init(items: [Item], total: Int) {
        self.items = items
        self.total = total
    }
}
