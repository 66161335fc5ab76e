import Codecs
import Foundation

/// A calendar day in Korea (UTC+9, no daylight saving), the unit of the feed's shuffle.
public struct KoreaDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970 of the day's midnight in Korea.
    public let start: Date

    /// Korea's offset from UTC (no daylight saving): the one definition.
    public static let utcOffset: TimeInterval = 9 * 3600

    /// The Korea day containing `instant`.
    public init(containing instant: Date) {
        let local = instant.timeIntervalSince1970 + Self.utcOffset
        start = Date(timeIntervalSince1970: (local / 86_400).rounded(.down) * 86_400 - Self.utcOffset)
    }

    /// Parses `YYYY-MM-DD`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = Self.number(bytes[0..<4]), let month = Self.number(bytes[5..<7]), let day = Self.number(bytes[8..<10]),
              year >= 1900, CivilDate.isValid(year: year, month: month, day: day)
        else { return nil }
        start = Date(timeIntervalSince1970: TimeInterval(CivilDate.days(year: year, month: month, day: day) * 86_400) - Self.utcOffset)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard (48...57).contains(digit) else { return nil }
            value = value * 10 + Int(digit - 48)
        }
        return value
    }

    /// The next day.
    public var next: KoreaDay { KoreaDay(containing: start.addingTimeInterval(86_400 + 3600)) }
    /// The previous day.
    public var previous: KoreaDay { KoreaDay(containing: start.addingTimeInterval(-3600)) }
    /// The first instant after the day.
    public var end: Date { next.start }

    /// `YYYY-MM-DD`.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        CivilDate.appendISODate(days: Int(((start.timeIntervalSince1970 + Self.utcOffset) / 86_400).rounded(.down)), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (lhs: KoreaDay, rhs: KoreaDay) -> Bool { lhs.start < rhs.start }
}

/// Feed orders.
public enum FeedSort: String, Sendable, CaseIterable {
    /// Open posts in the day's shuffle, then closed ones by end time (newest first);
    /// with a date range: start time, newest first.
    case `default`
    /// Newest posted first.
    case latest
    /// Most liked first.
    case popular
    /// Open posts ending soonest first.
    case endingSoon = "ending_soon"
}

/// Where a keyset page continues: the sort key and id of the last post returned.
public struct FeedCursor: Sendable, Equatable {
    /// The sort the cursor belongs to.
    public let sort: FeedSort
    /// The sort key of the last post: posted_at or end (seconds, microsecond precision) or likes.
    public let key: Double
    /// The id of the last post.
    public let id: Int

    public init(sort: FeedSort, key: Double, id: Int) {
        self.sort = sort
        self.key = key
        self.id = id
    }
}

/// What a feed request asks for.
public struct FeedQuery: Sendable, Equatable {
    public var category: CategoryID?
    /// Case-insensitive text to find.
    public var search: String?
    /// Korea days, inclusive: posts whose window overlaps them.
    public var dateRange: ClosedRange<KoreaDay>?
    /// Only posts in this state.
    public var status: PostStatus?
    /// The influencer offering it.
    public var influencer: InfluencerID?
    /// Posts with this hashtag (normalised), newest first; no other filter.
    public var hashtag: String?
    /// The order.
    public var sort: FeedSort = .default
    /// The page, from 1.
    public var page = 1
    /// Posts per page (1–50).
    public var limit = 20
    /// Where a keyset page continues.
    public var cursor: FeedCursor?

    /// The default query: everything, default order, first page of 20.
    public init() {}

    /// The same query without its search.
    public var withoutSearch: FeedQuery {
        var query = self
        query.search = nil
        return query
    }
}

/// One page of the feed.
public struct FeedPage: Sendable {
    /// Filters that no counter keeps (a search, a status, an influencer, a status with a
    /// date range) count their matches exactly up to this many; past it, ``total`` is an
    /// estimate. Counting every match is O(matches): `search=a` matches 680 k of 1 M posts
    /// (344 ms to count), `status=ongoing` 67 k (60–80 ms), while the page itself is not.
    public static let exactTotalLimit = 1_000

    /// How deep offset paging goes at most: the last item a page may reach (lists whose
    /// totals come from counters; counted lists stop at ``exactTotalLimit``, see
    /// ``FeedQuery/offsetReach``).
    public static let offsetLimit = 10_000

    /// The posts.
    public let items: [Post]
    /// Number of matches: exact unless ``totalIsExact`` is false.
    public let total: Int
    /// False when ``total`` is an estimate (a counted filter with more than
    /// ``exactTotalLimit`` matches); it is then more than that limit.
    public let totalIsExact: Bool
    /// Whether another post follows this page in this order (exact, whatever ``total``).
    public let hasMore: Bool
    /// Where the next keyset page starts (keyset sorts only, when there is more).
    public let nextCursor: FeedCursor?

    public init(items: [Post], total: Int, totalIsExact: Bool = true, hasMore: Bool, nextCursor: FeedCursor?) {
        self.items = items
        self.total = total
        self.totalIsExact = totalIsExact
        self.hasMore = hasMore
        self.nextCursor = nextCursor
    }
}

/// A category with its post counts.
public struct CategoryCount: Sendable, Equatable {
    public let category: Category
    /// Number of posts.
    public let postCount: Int
    /// Posts whose window has not ended.
    public let openPostCount: Int

    public init(category: Category, postCount: Int, openPostCount: Int) {
        self.category = category
        self.postCount = postCount
        self.openPostCount = openPostCount
    }
}

/// The feed's storage: pages, the per-day order and counters.
public protocol FeedRepository: RequestScoped {
    /// Makes `day`'s shuffled order ready (idempotent), spending at most `budget` on it
    /// (`nil`: however long it takes); whether it is ready.
    @discardableResult
    func prepare(day: KoreaDay, within budget: Duration?) async throws -> Bool
    /// Forgets orders of days before `day`.
    func discardDays(before day: KoreaDay) async throws
    /// Narrows the bounds that date and status filters derive their ranges from to what
    /// the posts hold now (a post at a bound was edited or deleted); whether they changed.
    func tightenWindowBounds() async throws -> Bool
    /// A page of the feed for `viewer` on `day` at `now`.
    func page(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?) async throws -> FeedPage
    /// Every category with its total and currently open post counts.
    func categoryCounts(day: KoreaDay, now: Date) async throws -> [CategoryCount]
}

extension FeedRepository {
    /// Makes `day`'s order ready, however long it takes (the maintenance job's way).
    public func prepare(day: KoreaDay) async throws {
        try await prepare(day: day, within: nil)
    }
}

/// Use case: the home feed.
public struct BrowseFeed: Sendable {
    private let feed: any FeedRepository
    private let now: @Sendable () -> Date

    public init(feed: any FeedRepository, now: @escaping @Sendable () -> Date) {
        self.feed = feed
        self.now = now
    }

    /// How long a request helps build a day's order that is not ready (the maintenance job
    /// builds it ahead of the day; a request meets an unbuilt day only just after the first
    /// start on a database, or when the job has failed).
    public static let preparationBudget = Duration.seconds(1)

    /// A page of posts for `viewer`. The default order reads the day's ranks: until they
    /// are built, ``DomainError/starting(_:)`` (the other orders do not need them).
    public func page(_ query: FeedQuery, viewer: Principal) async throws -> FeedPage {
        let now = now()
        let day = KoreaDay(containing: now)
        if try await !feed.prepare(day: day, within: Self.preparationBudget), query.sort == .default, query.hashtag == nil {
            throw DomainError.starting("The feed's order for today is still being built (the server has just started); retry in a few seconds, "
                                       + "or ask for sort=latest meanwhile.")
        }
        return try await feed.page(query, day: day, now: now, viewer: viewer.userID)
    }

    /// The categories with counts (open posts are counted from the day's order).
    public func categories() async throws -> [CategoryCount] {
        let now = now()
        let day = KoreaDay(containing: now)
        guard try await feed.prepare(day: day, within: Self.preparationBudget) else {
            throw DomainError.starting("The feed's order for today is still being built (the server has just started); retry in a few seconds.")
        }
        return try await feed.categoryCounts(day: day, now: now)
    }
}

extension BrowseFeed: RequestScoped {
    public func scoped(_ scope: RequestScope) -> BrowseFeed { BrowseFeed(feed: feed.scoped(scope), now: now) }
}

extension FeedQuery {
    /// The paging bound, defined here once: the last item an offset page of this query may
    /// reach, as far as its total is exact. A search, an influencer or a status other than
    /// closed is counted (exact up to ``FeedPage/exactTotalLimit``): past that a page costs
    /// more than an answer should (item 2,000 of a search: 382 ms, item 8,000 of
    /// `status=ongoing`: 119 ms on 1 M posts), and the keyset cursor goes on from there.
    /// Totals from counters page to ``FeedPage/offsetLimit``.
    public var offsetReach: Int {
        let counted = search != nil || influencer != nil || status.map { $0 != .closed } == true
        return counted ? FeedPage.exactTotalLimit : FeedPage.offsetLimit
    }
}
