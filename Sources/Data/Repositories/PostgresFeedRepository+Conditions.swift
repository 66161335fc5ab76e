import Domain
import Foundation

/// A filtered list's conditions on posts, and the totals counters give without counting.
extension PostgresFeedRepository {
    /// The conditions of `query` on posts `p` (the keyset cursor's are added by `order`).
    /// Built the same way every time, so two builds number their parameters alike.
    static func conditions(_ query: FeedQuery, now: Date, windows: PostWindowBounds?) -> FeedSQL {
        var sql = FeedSQL()
        if let category = query.category { sql.where("p.category_id = \(sql.bind(category.rawValue))") }
        if let influencer = query.influencer { sql.where("p.influencer_id = \(sql.bind(influencer.rawValue))") }
        if let search = query.search { sql.search(search) }
        if let range = query.dateRange {
            // The window [start, end] overlaps [first day's start, last day's end).
            sql.where("p.group_buying_start < \(sql.bind(range.upperBound.end)) AND p.group_buying_end >= \(sql.bind(range.lowerBound.start))")
            if let windows { sql.where(windows.dateRangeConditions(range, &sql)) }
        }
        if let status = query.status {
            // Bind only what each condition uses: an unused parameter has no type.
            switch status {
            case .upcoming:
                sql.where("p.group_buying_start > \(sql.bind(now))")
            case .ongoing:
                sql.where("p.group_buying_start <= \(sql.bind(now)) AND p.group_buying_end >= \(sql.bind(now.addingTimeInterval(PostStatus.closingSoonWindow)))")
            case .closingSoon:
                let instant = sql.bind(now)
                sql.where("p.group_buying_start <= \(instant) AND p.group_buying_end >= \(instant) AND p.group_buying_end < \(sql.bind(now.addingTimeInterval(PostStatus.closingSoonWindow)))")
            case .closed:
                sql.where("p.group_buying_end < \(sql.bind(now))")
            }
        }
        if query.sort == .endingSoon { sql.where("p.group_buying_end >= \(sql.bind(now))") }
        return sql
    }

    /// The total from counters, as SQL, when only a category and a date range narrow the feed
    /// (keyset sorts over everything or over open posts, date ranges); `nil` when the
    /// filters need counting.
    static func counterTotal(_ query: FeedQuery, day: KoreaDay, now: Date, sql: inout FeedSQL) -> String? {
        guard query.search == nil, query.influencer == nil else { return nil }
        // Which totals counters give is decided before anything is bound: an unused
        // parameter has no type.
        let closed = query.status == .closed && query.dateRange == nil && query.sort != .endingSoon
        guard closed || query.status == nil, query.dateRange == nil || query.sort != .endingSoon,
              closed || query.dateRange != nil || query.sort != .default else { return nil }
        let category = query.category.map { " AND category_id = \(sql.bind($0.rawValue))" } ?? ""
        let all = "(SELECT COALESCE(sum(post_count), 0)::int FROM category_post_counts WHERE true\(category))"
        func openNow(_ sql: inout FeedSQL) -> String {
            // Migration 0016: open at midnight (counter) − closed since midnight.
            """
            (SELECT COALESCE(sum(open_count), 0)::int
             FROM open_post_counts(\(sql.bind(day.description))::date, \(sql.bind(day.start)), \(sql.bind(now))) WHERE true\(category))
            """
        }
        if closed {
            // Closed = every post − those open now (counting the 141 k open posts in the
            // posts_end index instead: 30 ms on 1 M posts).
            return "(\(all) - \(openNow(&sql)))"
        }
        if let range = query.dateRange {
            // Posts starting by the last day − posts ending before the first (migration 0009).
            return """
                (SELECT (COALESCE(sum(starts) FILTER (WHERE day <= \(sql.bind(range.upperBound.description))::date), 0)
                         - COALESCE(sum(ends) FILTER (WHERE day < \(sql.bind(range.lowerBound.description))::date), 0))::int
                 FROM post_day_counts WHERE true\(category))
                """
        }
        switch query.sort {
        case .latest, .popular:
            return all
        case .endingSoon:
            return openNow(&sql)
        case .default:
            return nil  // not reached: the guard above
        }
    }
}
