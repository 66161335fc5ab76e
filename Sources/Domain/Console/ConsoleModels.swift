import Foundation

/// A post as the console lists and edits it: visible or hidden, with where it came from.
public struct ConsolePost: Sendable, Equatable {
    public let id: PostID
    public let productName: String
    public let price: Int?
    public let category: CategoryID
    public let influencerID: InfluencerID
    public let influencerUsername: String
    /// `app`, `ingest` or `import`.
    public let source: String
    public let groupBuyingStart: Date
    public let groupBuyingEnd: Date
    public let displayURL: String?
    public let groupBuyingURL: String?
    public let caption: String?
    public let likesCount: Int
    public let submittedBy: UserID?
    /// When an operator hid it; `nil` while it is shown.
    public let hiddenAt: Date?

    public init(id: PostID, productName: String, price: Int?, category: CategoryID, influencerID: InfluencerID, influencerUsername: String,
                source: String, groupBuyingStart: Date, groupBuyingEnd: Date, displayURL: String?, groupBuyingURL: String?,
                caption: String?, likesCount: Int, submittedBy: UserID?, hiddenAt: Date?) {
        self.id = id
        self.productName = productName
        self.price = price
        self.category = category
        self.influencerID = influencerID
        self.influencerUsername = influencerUsername
        self.source = source
        self.groupBuyingStart = groupBuyingStart
        self.groupBuyingEnd = groupBuyingEnd
        self.displayURL = displayURL
        self.groupBuyingURL = groupBuyingURL
        self.caption = caption
        self.likesCount = likesCount
        self.submittedBy = submittedBy
        self.hiddenAt = hiddenAt
    }
}

/// The console's post filters; every one optional.
public struct ConsolePostFilter: Sendable, Equatable {
    /// The API's Korean search (product, influencer).
    public var search: String?
    public var category: CategoryID?
    public var status: PostStatus?
    public var influencer: InfluencerID?
    /// `app`, `ingest` or `import`.
    public var source: String?
    /// Hidden posts instead of shown ones.
    public var hidden = false

    public init() {}

    public static let sources = ["app", "ingest", "import"]
    /// Matches are counted up to this many (an operator pages through the first ones).
    public static let countedUpTo = 10_000
}

/// An influencer as the console lists and edits it.
public struct ConsoleInfluencer: Sendable, Equatable {
    public let id: InfluencerID
    public let username: String
    public let fullName: String?
    public let biography: String?
    public let followersCount: Int
    public let category: CategoryID?
    public let externalURL: String?
    public let profilePicURL: String?
    public let postCount: Int
    public let hiddenAt: Date?

    public init(id: InfluencerID, username: String, fullName: String?, biography: String?, followersCount: Int, category: CategoryID?,
                externalURL: String?, profilePicURL: String?, postCount: Int, hiddenAt: Date?) {
        self.id = id
        self.username = username
        self.fullName = fullName
        self.biography = biography
        self.followersCount = followersCount
        self.category = category
        self.externalURL = externalURL
        self.profilePicURL = profilePicURL
        self.postCount = postCount
        self.hiddenAt = hiddenAt
    }
}

/// What an operator may change of an influencer (`nil` leaves a field as it is; an empty
/// text clears it).
public struct InfluencerChanges: Sendable, Equatable {
    public var fullName: String?
    public var biography: String?
    public var followersCount: Int?
    public var externalURL: String?

    public init() {}
}

/// An account as the console lists it.
public struct ConsoleUser: Sendable, Equatable {
    public let id: UserID
    public let email: String?
    public let nickname: String?
    public let role: Role
    public let isAnonymous: Bool
    public let createdAt: Date
    public let liveSessions: Int
    public let likes: Int
    public let posts: Int
    public let requests: Int

    public init(id: UserID, email: String?, nickname: String?, role: Role, isAnonymous: Bool, createdAt: Date,
                liveSessions: Int, likes: Int, posts: Int, requests: Int) {
        self.id = id
        self.email = email
        self.nickname = nickname
        self.role = role
        self.isAnonymous = isAnonymous
        self.createdAt = createdAt
        self.liveSessions = liveSessions
        self.likes = likes
        self.posts = posts
        self.requests = requests
    }
}

/// One series of hourly counts, oldest hour first.
public struct HourlySeries: Sendable, Equatable {
    public let name: String
    /// The first hour's start.
    public let start: Date
    public let counts: [Int]

    public init(name: String, start: Date, counts: [Int]) {
        self.name = name
        self.start = start
        self.counts = counts
    }
}

/// Posts of one category by where their window stands now.
public struct CategoryActivity: Sendable, Equatable {
    public let category: CategoryID
    public let name: String
    public let openNow: Int
    public let upcoming: Int
    /// Open with under 24 hours left (the API's `closing_soon`).
    public let closingSoon: Int

    public init(category: CategoryID, name: String, openNow: Int, upcoming: Int, closingSoon: Int) {
        self.category = category
        self.name = name
        self.openNow = openNow
        self.upcoming = upcoming
        self.closingSoon = closingSoon
    }
}

/// The console's first page: how the day and the week went, and the queues.
public struct ConsoleOverview: Sendable, Equatable {
    public let categories: [CategoryActivity]
    /// Sign-ups, likes and ingested posts per hour, the last 7 days.
    public let series: [HourlySeries]
    public let pendingRequests: Int
    public let hiddenPosts: Int
    public let keys: [ServiceKey]
    public let storedMediaBytes: Int
    public let admins: Int

    public init(categories: [CategoryActivity], series: [HourlySeries], pendingRequests: Int, hiddenPosts: Int, keys: [ServiceKey],
                storedMediaBytes: Int, admins: Int) {
        self.categories = categories
        self.series = series
        self.pendingRequests = pendingRequests
        self.hiddenPosts = hiddenPosts
        self.keys = keys
        self.storedMediaBytes = storedMediaBytes
        self.admins = admins
    }
}

/// A signed-in console session.
public struct ConsoleSession: Sendable, Equatable {
    public let userID: UserID
    public let email: String
    /// The token every form of this session carries.
    public let csrfToken: String

    public init(userID: UserID, email: String, csrfToken: String) {
        self.userID = userID
        self.email = email
        self.csrfToken = csrfToken
    }
}

/// One of an account's sessions (the app's sign-ins), as the console lists them.
public struct AccountSession: Sendable, Equatable {
    public let createdAt: Date
    public let refreshedAt: Date
    public let revokedAt: Date?
    /// Why it ended (`logout`, `expired`, …).
    public let revokedReason: String?

    public init(createdAt: Date, refreshedAt: Date, revokedAt: Date?, revokedReason: String?) {
        self.createdAt = createdAt
        self.refreshedAt = refreshedAt
        self.revokedAt = revokedAt
        self.revokedReason = revokedReason
    }
}
