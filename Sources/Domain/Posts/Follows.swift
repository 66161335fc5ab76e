import Foundation

/// Follows of influencers, one per user and influencer; the influencer's
/// `app_followers_count` moves with the rows.
public protocol FollowRepository: RequestScoped {
    /// Follows the influencer (idempotent); returns how many users follow it.
    /// ``DomainError/notFound(_:)`` (`influencer`) when it does not exist,
    /// ``DomainError/limitReached(_:message:)`` (`follow`) when `user` already follows `limit`.
    func follow(_ influencer: InfluencerID, by user: UserID, limit: Int) async throws -> Int
    /// Stops following (idempotent); returns how many users follow the influencer.
    func unfollow(_ influencer: InfluencerID, by user: UserID) async throws -> Int
    /// The influencers `user` follows, most recently followed first.
    func followed(by user: UserID, offset: Int, limit: Int) async throws -> Page<InfluencerProfile>
    /// Posts of influencers `user` follows whose buying window overlaps `from..<to`, by
    /// end time (then id), with `isLiked` for `user`.
    func schedule(of user: UserID, from: Date, to: Date, offset: Int, limit: Int) async throws -> Page<Post>
}

/// Use cases of follows: follow, unfollow, the followed list and their schedule.
public struct Follows: Sendable {
    /// Most influencers one account may follow: a schedule walks each followed
    /// influencer's posts, so its cost grows with this number (500 follows: a few ms).
    public static let limit = 1000
    /// Longest schedule range, in days (a quarter).
    public static let longestRange = 92

    private let follows: any FollowRepository

    public init(follows: any FollowRepository) {
        self.follows = follows
    }

    /// Follows an influencer; repeating it changes nothing. Returns its follower count.
    public func follow(_ influencer: InfluencerID, by user: PermanentPrincipal) async throws -> Int {
        try await follows.follow(influencer, by: user.userID, limit: Self.limit)
    }

    /// Stops following; repeating it changes nothing. Returns the follower count.
    public func unfollow(_ influencer: InfluencerID, by user: PermanentPrincipal) async throws -> Int {
        try await follows.unfollow(influencer, by: user.userID)
    }

    /// The influencers the caller follows.
    public func followed(by viewer: Principal, page: Int, limit: Int) async throws -> Page<InfluencerProfile> {
        try await follows.followed(by: viewer.userID, offset: (page - 1) * limit, limit: limit)
    }

    /// Posts of followed influencers open on any day of `days` (Korea dates, at most
    /// ``longestRange`` of them), ending soonest first.
    public func schedule(_ days: ClosedRange<KoreaDay>, viewer: Principal, page: Int, limit: Int) async throws -> Page<Post> {
        try Self.validate(days)
        return try await follows.schedule(of: viewer.userID, from: days.lowerBound.start, to: days.upperBound.end,
                                          offset: (page - 1) * limit, limit: limit)
    }

    /// ``DomainError/invalid(field:message:)`` for a range over ``longestRange`` days.
    public static func validate(_ days: ClosedRange<KoreaDay>) throws {
        let count = Int((days.upperBound.start.timeIntervalSince(days.lowerBound.start) / 86_400).rounded()) + 1
        guard count <= longestRange else {
            throw DomainError.invalid(field: "end_date", message: "a schedule spans at most \(longestRange) days")
        }
    }
}

/// A page of posts grouped by the Korea day their buying window ends, in order: what a
/// schedule's calendar draws.
public struct ScheduleDay: Sendable, Equatable {
    /// The day.
    public let day: KoreaDay
    /// Posts ending on that day, in the page's order.
    public let posts: [Post]

    /// `posts` (already ordered by end) grouped by end day.
    public static func grouping(_ posts: [Post]) -> [ScheduleDay] {
        var days: [ScheduleDay] = []
        for post in posts {
            let day = KoreaDay(containing: post.groupBuyingEnd)
            if let last = days.last, last.day == day {
                days[days.count - 1] = ScheduleDay(day: day, posts: last.posts + [post])
            } else {
                days.append(ScheduleDay(day: day, posts: [post]))
            }
        }
        return days
    }
}

extension Follows: RequestScoped {
    public func scoped(_ scope: RequestScope) -> Follows { Follows(follows: follows.scoped(scope)) }
}
