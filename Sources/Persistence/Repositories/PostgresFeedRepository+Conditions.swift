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
        if let status = query.status, status != .closed, query.dateRange == nil, query.sort != .endingSoon {
            return openStatusTotal(status, query.category, day: day, now: now, sql: &sql)
        }
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

    /// An open status's total, exact, from the counters of migration 0009 and two ranges of
    /// at most a day: posts started by now S = starts of the days before today + today's
    /// starts so far; ended by now E likewise; upcoming = all − S; closing soon = the next
    /// 24 hours of ends among started posts (one range of posts_end); ongoing = S − E −
    /// closing soon. Before, past 1,000 matches these were the planner's estimate: 4,410
    /// upcoming when 1,046 were (the demo data), and on 1 M posts counting ongoing's 67 k
    /// took 60-80 ms.
    static func openStatusTotal(_ status: PostStatus, _ category: CategoryID?, day: KoreaDay, now: Date, sql: inout FeedSQL) -> String {
        // Each value bound once, when first used (an unused parameter has no type).
        var bound: [String: String] = [:]
        func value(_ key: String, _ make: @autoclosure () -> any PostgresEncodable) -> String {
            if let placeholder = bound[key] { return placeholder }
            let placeholder = sql.bind(make())
            bound[key] = placeholder
            return placeholder
        }
        func inCategory(_ column: String) -> String {
            category.map { " AND \(column) = \(value("category", $0.rawValue))" } ?? ""
        }
        func byDay(_ column: String, _ counter: String) -> String {
            """
            ((SELECT COALESCE(sum(\(counter)), 0) FROM post_day_counts WHERE day < \(value("today", day.description))::date\(inCategory("category_id")))
             + (SELECT count(*) FROM posts p WHERE p.\(column) >= \(value("dayStart", day.start)) AND p.\(column) \(counter == "starts" ? "<=" : "<") \(value("now", now))\(inCategory("p.category_id"))))
            """
        }
        func closingSoon() -> String {
            """
            (SELECT count(*) FROM posts p WHERE p.group_buying_end >= \(value("now", now))
             AND p.group_buying_end < \(value("soon", now.addingTimeInterval(PostStatus.closingSoonWindow)))
             AND p.group_buying_start <= \(value("now", now))\(inCategory("p.category_id")))
            """
        }
        switch status {
        case .upcoming:
            let all = "(SELECT COALESCE(sum(post_count), 0) FROM category_post_counts WHERE true\(inCategory("category_id")))"
            return "(\(all) - \(byDay("group_buying_start", "starts")))::int"
        case .closingSoon:
            return "\(closingSoon())::int"
        case .ongoing:
            return "(\(byDay("group_buying_start", "starts")) - \(byDay("group_buying_end", "ends")) - \(closingSoon()))::int"
        case .closed:
            return "\(byDay("group_buying_end", "ends"))::int"
        }
    }
}
