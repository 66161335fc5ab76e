import Domain
import Foundation
import PostgresDriver

/// Bounds that hold for every post's times (migration 0015): the longest buying window,
/// and the least and greatest lead of a window's start over the post's `posted_at`. They
/// turn a filter on the window into a stretch of `posted_at`, so a newest-first list walks
/// only that stretch: `date_from=2026-06-01&date_to=2026-06-01&sort=latest` skipped 918 k
/// newer posts inside `posts_posted_at` (100 ms on 1 M posts) before its first match.
struct PostWindowBounds {
    let longest: TimeInterval
    let leadMin: TimeInterval
    let leadMax: TimeInterval

    /// The bounds, or `nil` before the first post.
    static func read(_ connection: PostgresConnection) throws -> PostWindowBounds? {
        let row = try connection.query("""
            SELECT extract(epoch FROM longest)::float8, extract(epoch FROM lead_min)::float8, extract(epoch FROM lead_max)::float8
            FROM post_window_bounds
            """).first
        guard let row, let longest = try row.decode(0, as: Double?.self), let leadMin = try row.decode(1, as: Double?.self),
              let leadMax = try row.decode(2, as: Double?.self) else { return nil }
        return PostWindowBounds(longest: longest, leadMin: leadMin, leadMax: leadMax)
    }

    /// Where the starts of the posts `query` matches at `now` can lie (`nil`: unbounded on
    /// that side); an empty range when no post can match.
    func startRange(_ query: FeedQuery, now: Date) -> (earliest: Date?, latest: Date?) {
        var earliest: Date?, latest: Date?, endEarliest: Date?
        func start(atMost date: Date) { latest = min(latest ?? date, date) }
        func end(atLeast date: Date) { endEarliest = max(endEarliest ?? date, date) }
        if let range = query.dateRange {
            start(atMost: range.upperBound.end)
            end(atLeast: range.lowerBound.start)
        }
        switch query.status {
        case .upcoming: earliest = now
        case .ongoing: start(atMost: now); end(atLeast: now.addingTimeInterval(PostStatus.closingSoonWindow))
        case .closingSoon: start(atMost: now); end(atLeast: now)
        case .closed: start(atMost: now)  // it ended before now, and started no later
        case nil: break
        }
        if query.sort == .endingSoon { end(atLeast: now) }
        if let endEarliest {
            let implied = Self.representable(endEarliest.addingTimeInterval(-longest))
            earliest = max(earliest ?? implied, implied)
        }
        return (earliest, latest)
    }

    /// Whether no post can match `query` at `now` (`status=ongoing` with a date range in
    /// September: a window would have to be three months long).
    func excludesEverything(_ query: FeedQuery, now: Date) -> Bool {
        let start = startRange(query, now: now)
        guard let earliest = start.earliest, let latest = start.latest else { return false }
        return earliest > latest.addingTimeInterval(Self.slack)
    }

    /// Where in `posted_at` the posts `query` matches at `now` can lie (`nil`: unbounded on
    /// that side).
    func postedRange(_ query: FeedQuery, now: Date) -> (earliest: Date?, latest: Date?) {
        let start = startRange(query, now: now)
        return (start.earliest.map { Self.representable($0.addingTimeInterval(-leadMax - Self.slack)) },
                start.latest.map { Self.representable($0.addingTimeInterval(-leadMin + Self.slack)) })
    }

    /// `date` within years 1800–9999: a bound derived from stored windows (some imported
    /// before windows were limited) could fall before year 1, which PostgreSQL's timestamp
    /// input refuses (a 500); no post lies outside these years, so the clamp loses none.
    static func representable(_ date: Date) -> Date {
        min(max(date, Date(timeIntervalSince1970: -5_364_662_400)), Date(timeIntervalSince1970: 253_402_300_799))
    }

    /// The conditions a date range implies on the window's other end: it starts at most the
    /// longest window before the range, and ends at most that long after it. They make the
    /// range a bounded stretch of each index (a day in June: `start < June 2` alone is 216 k
    /// posts of `posts_start`).
    func dateRangeConditions(_ range: ClosedRange<KoreaDay>) -> SQL {
        let startEarliest = Self.representable(range.lowerBound.start.addingTimeInterval(-longest - Self.slack))
        let endLatest = Self.representable(range.upperBound.end.addingTimeInterval(longest + Self.slack))
        return "p.group_buying_start >= \(startEarliest) AND p.group_buying_end <= \(endLatest)"
    }

    /// How far each derived bound is widened: the bounds travel as seconds in a float, and
    /// a post on the edge must not be lost to rounding.
    private static let slack: TimeInterval = 1
}
