import Domain
import Foundation
import Synchronization

/// ``FeedRepository`` over `posts`, the per-day `feed_ranks` order and the counters that
/// triggers keep (see `migrations/0004_feed_order_and_counters.sql`).
///
/// The unfiltered default feed (any category) reads the day's order from an index and
/// takes its total from counters: no per-request hashing or counting of open posts.
/// Filtered feeds (search, status, date range, influencer) match small sets and count them.
public final class PostgresFeedRepository: FeedRepository {
    private let pool: PostgresPool
    private let preparedDays = Mutex<Set<KoreaDay>>([])

    /// Creates the repository over a pool.
    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func prepare(day: KoreaDay) async throws {
        if preparedDays.withLock({ $0.contains(day) }) { return }
        try await pool.transaction { connection in
            // Maintenance, not a request: 8.5 s on 1 M posts, beyond the request timeout.
            try connection.execute("SET LOCAL statement_timeout = 0")
            // Exclusive against post writes (which share the lock), so no post written
            // meanwhile is missing from the day's order.
            try connection.execute("SELECT pg_advisory_xact_lock(feed_lock_key())")
            let created = try connection.execute(
                "INSERT INTO feed_days (day, day_start) VALUES ($1::date, $2) ON CONFLICT (day) DO NOTHING", [day.description, day.start])
            if created == 1 {
                try connection.execute("""
                    INSERT INTO feed_ranks (day, post_id, category_id, rank)
                    SELECT $1::date, id, category_id, feed_rank(id, $1::date) FROM posts WHERE group_buying_end >= $2
                    """, [day.description, day.start])
            }
        }
        preparedDays.withLock { _ = $0.insert(day) }
    }

    public func discardDays(before day: KoreaDay) async throws {
        try await pool.transaction { connection in
            try connection.execute("SET LOCAL statement_timeout = 0")
            try connection.execute("DELETE FROM feed_days WHERE day < $1::date", [day.description])
        }
        preparedDays.withLock { $0 = $0.filter { $0 >= day } }
    }

    public func page(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?) async throws -> FeedPage {
        try await pool.withConnection { connection in
            if query.sort == .default && query.search == nil && query.status == nil && query.dateRange == nil && query.influencer == nil {
                return try Self.dailyOrder(query, day: day, viewer: viewer, connection)
            }
            return try Self.filtered(query, day: day, now: now, viewer: viewer, connection)
        }
    }

    public func categoryCounts(day: KoreaDay, now: Date) async throws -> [CategoryCount] {
        try await pool.withConnection { connection in
            // Open now = open at midnight (counter) − closed since midnight (a small range).
            try connection.query("""
                SELECT c.id, c.name, cc.post_count, COALESCE(f.open_count, 0) - COALESCE(x.closed, 0)
                FROM categories c
                JOIN category_post_counts cc ON cc.category_id = c.id
                LEFT JOIN feed_open_counts f ON f.day = $1::date AND f.category_id = c.id
                LEFT JOIN (SELECT category_id, count(*) AS closed FROM posts
                           WHERE group_buying_end >= $2 AND group_buying_end < $3 GROUP BY category_id) x ON x.category_id = c.id
                ORDER BY c.sort_order
                """, [day.description, day.start, now]).map { row in
                CategoryCount(category: Category(id: CategoryID(rawValue: try row.decode(0)), name: try row.decode(1)),
                              postCount: try row.decode(2), openPostCount: try row.decode(3))
            }
        }
    }

    // MARK: - The unfiltered default feed

    private static func dailyOrder(_ query: FeedQuery, day: KoreaDay, viewer: UserID?, _ connection: PostgresConnection) throws -> FeedPage {
        // One statement: the total from counters and the page's posts; an empty page still
        // returns the total. Texts differ by category (rather than a nullable parameter) so
        // each has its own plan.
        var totals = "category_post_counts"
        let page: String
        var parameters: [any PostgresEncodable]
        if query.page == 1 {
            // The first page (what the app opens with): the day's first posts by rank, then
            // the newest closed ones if the open section is short, with LIMIT written into
            // the text, so one plain plan serves every request.
            parameters = [day.description, day.start, viewer?.rawValue]
            var open = "", closed = ""
            if let id = query.category?.rawValue {
                parameters.append(id)
                (open, closed) = (" AND f.category_id = $4", " AND x.category_id = $4")
                totals += " WHERE category_id = $4"
            }
            page = """
                (SELECT u.post_id, u.section, u.ordinal FROM (
                    (SELECT r.post_id, 0 AS section, row_number() OVER (ORDER BY r.rank, r.post_id) AS ordinal
                     FROM (SELECT f.post_id, f.rank FROM feed_ranks f WHERE f.day = $1::date\(open)
                           ORDER BY f.rank, f.post_id LIMIT \(query.limit)) r)
                    UNION ALL
                    (SELECT r.id, 1, row_number() OVER (ORDER BY r.group_buying_end DESC, r.id DESC)
                     FROM (SELECT x.id, x.group_buying_end FROM posts x WHERE x.group_buying_end < $2\(closed)
                           ORDER BY x.group_buying_end DESC, x.id DESC LIMIT \(query.limit)) r)) u
                 ORDER BY u.section, u.ordinal LIMIT \(query.limit)) r
                """
        } else {
            // Deeper pages: feed_default_page (migration 0007) cuts the page behind a
            // function declared to return 20 rows, so the join keeps one plan for every OFFSET.
            parameters = [day.description, day.start, viewer?.rawValue, (query.page - 1) * query.limit, query.limit]
            var category = "NULL::text"
            if let id = query.category?.rawValue {
                parameters.append(id)
                category = "$6"
                totals += " WHERE category_id = $6"
            }
            page = "(SELECT post_id, 0 AS section, ordinal FROM feed_default_page($1::date, $2, \(category), $4, $5)) r"
        }
        let rows = try connection.query("""
            SELECT t.total, \(PostRows.columns(viewer: 3))
            FROM (SELECT COALESCE(sum(post_count), 0)::int AS total FROM \(totals)) t
            LEFT JOIN (\(page)
                       JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id
                       JOIN categories c ON c.id = p.category_id) ON true
            ORDER BY r.section, r.ordinal
            """, parameters)
        var total = 0
        var items: [Post] = []
        for row in rows {
            total = try row.decode(0)
            if try row.decode(1, as: Int?.self) != nil { items.append(try PostRows.decode(row, from: 1)) }
        }
        return FeedPage(items: items, total: total, nextCursor: nil)
    }

    // MARK: - Filtered feeds and keyset sorts

    private static func filtered(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?, _ connection: PostgresConnection) throws -> FeedPage {
        var sql = FeedSQL()
        if let category = query.category { sql.where("p.category_id = \(sql.bind(category.rawValue))") }
        if let influencer = query.influencer { sql.where("p.influencer_id = \(sql.bind(influencer.rawValue))") }
        if let search = query.search {
            let pattern = sql.bind("%" + Self.escapeLike(search.lowercased()) + "%")
            // Two index-backed halves instead of one OR across tables (which scans every post),
            // matched once per statement for both the page and its count.
            sql.with = """
                WITH matched AS MATERIALIZED (
                    SELECT id FROM posts WHERE lower(product_name) LIKE \(pattern) ESCAPE '\\'
                    UNION SELECT sp.id FROM posts sp JOIN influencers si ON si.id = sp.influencer_id
                          WHERE lower(si.username) LIKE \(pattern) ESCAPE '\\' OR lower(si.full_name) LIKE \(pattern) ESCAPE '\\')
                """
            sql.where("p.id IN (SELECT id FROM matched)")
        }
        if let range = query.dateRange {
            // The window [start, end] overlaps [first day's start, last day's end).
            sql.where("p.group_buying_start < \(sql.bind(range.upperBound.end)) AND p.group_buying_end >= \(sql.bind(range.lowerBound.start))")
        }
        if let status = query.status {
            // Bind only what each condition uses: an unused parameter has no type.
            switch status {
            case .upcoming:
                sql.where("p.group_buying_start > \(sql.bind(now))")
            case .ongoing:
                sql.where("p.group_buying_start <= \(sql.bind(now)) AND p.group_buying_end >= \(sql.bind(now.addingTimeInterval(86_400)))")
            case .closingSoon:
                let instant = sql.bind(now)
                sql.where("p.group_buying_start <= \(instant) AND p.group_buying_end >= \(instant) AND p.group_buying_end < \(sql.bind(now.addingTimeInterval(86_400)))")
            case .closed:
                sql.where("p.group_buying_end < \(sql.bind(now))")
            }
        }
        if query.sort == .endingSoon { sql.where("p.group_buying_end >= \(sql.bind(now))") }

        let countWhere = sql.whereClause
        let countParameters = sql.parameters
        let (order, keyColumn) = try Self.order(query, day: day, sql: &sql)
        // The total rides along as an uncorrelated subquery (evaluated once): from counters
        // when only a category narrows the feed, by counting the matches otherwise.
        // Counting needs no joins: every condition is on posts, and the foreign keys are NOT
        // NULL (joined, closed posts took 345 ms to count on 1 M posts; alone, 86 ms).
        let total = Self.counterTotal(query, day: day, now: now, sql: &sql) ?? "(SELECT count(*)::int FROM posts p \(countWhere))"
        let viewerParameter = sql.parameters.count + 1
        _ = sql.bind(viewer?.rawValue)
        let offset = query.cursor == nil ? (query.page - 1) * query.limit : 0
        // LIMIT is written into the text (one statement per limit, at most 50) so the
        // planner knows the page is small; OFFSET only when there is one.
        let rows = Array(try connection.query("""
            \(sql.with) SELECT \(total), \(PostRows.columns(viewer: viewerParameter)), \(keyColumn) \(PostRows.joins) \(sql.whereClause)
            ORDER BY \(order)\(offset > 0 ? " OFFSET \(sql.bind(offset))" : "") LIMIT \(query.limit + 1)
            """, sql.parameters))
        let items = try rows.prefix(query.limit).map { try PostRows.decode($0, from: 1) }
        let count: Int
        if let first = rows.first {
            count = try first.decode(0)
        } else {
            // An empty page (past the end) carries no row to read the total from.
            var counters = FeedSQL()
            if let counted = Self.counterTotal(query, day: day, now: now, sql: &counters) {
                count = try connection.query("SELECT \(counted)", counters.parameters).first!.decode(0)
            } else {
                count = try connection.query("\(sql.with) SELECT count(*)::int FROM posts p \(countWhere)", countParameters).first!.decode(0)
            }
        }
        var next: FeedCursor?
        if query.sort != .default, rows.count > query.limit, let last = rows.prefix(query.limit).last {
            next = FeedCursor(sort: query.sort, key: try last.decode(19), id: try last.decode(1))
        }
        return FeedPage(items: items, total: count, nextCursor: next)
    }

    /// The total from counters, as SQL, when only a category and a date range narrow the feed
    /// (keyset sorts over everything or over open posts, date ranges); `nil` when the
    /// filters need counting.
    private static func counterTotal(_ query: FeedQuery, day: KoreaDay, now: Date, sql: inout FeedSQL) -> String? {
        guard query.search == nil, query.influencer == nil else { return nil }
        if query.status == .closed && query.dateRange == nil && query.sort != .endingSoon {
            // Closed = every post − those not yet ended (a range of the posts_end index).
            let category = query.category.map { " AND category_id = \(sql.bind($0.rawValue))" } ?? ""
            return """
                ((SELECT COALESCE(sum(post_count), 0) FROM category_post_counts WHERE true\(category))::int
                 - (SELECT count(*) FROM posts WHERE group_buying_end >= \(sql.bind(now))\(category))::int)
                """
        }
        guard query.status == nil else { return nil }
        let category = query.category.map { " AND category_id = \(sql.bind($0.rawValue))" } ?? ""
        if let range = query.dateRange {
            guard query.sort != .endingSoon else { return nil }
            // Posts starting by the last day − posts ending before the first (migration 0009).
            return """
                (SELECT (COALESCE(sum(starts) FILTER (WHERE day <= \(sql.bind(range.upperBound.description))::date), 0)
                         - COALESCE(sum(ends) FILTER (WHERE day < \(sql.bind(range.lowerBound.description))::date), 0))::int
                 FROM post_day_counts WHERE true\(category))
                """
        }
        switch query.sort {
        case .latest, .popular:
            return "(SELECT COALESCE(sum(post_count), 0)::int FROM category_post_counts WHERE true\(category))"
        case .endingSoon:
            // Open now = open at midnight − closed since midnight (a small range).
            return """
                ((SELECT COALESCE(sum(open_count), 0) FROM feed_open_counts WHERE day = \(sql.bind(day.description))::date\(category))::int
                 - (SELECT count(*) FROM posts WHERE group_buying_end >= \(sql.bind(day.start)) AND group_buying_end < \(sql.bind(now))\(category))::int)
                """
        case .default:
            return nil
        }
    }

    /// The ORDER BY for `query` and the sort-key column (as seconds or a count, for cursors);
    /// adds the cursor condition.
    private static func order(_ query: FeedQuery, day: KoreaDay, sql: inout FeedSQL) throws -> (String, String) {
        switch query.sort {
        case .default where query.dateRange != nil:
            return ("p.group_buying_start DESC, p.id DESC", "0::float8")
        case .default where query.status == .closed:
            // Only closed posts: most recently closed first, straight from the posts_end
            // index. The daily order below sorted all 858 k closed posts of the bench
            // dataset by an expression per page (1.9 s).
            return ("p.group_buying_end DESC, p.id DESC", "0::float8")
        case .default:
            let dayStart = sql.bind(day.start)
            let dayText = sql.bind(day.description)
            return ("(p.group_buying_end >= \(dayStart)) DESC, CASE WHEN p.group_buying_end >= \(dayStart) THEN feed_rank(p.id, \(dayText)::date) END, p.group_buying_end DESC, p.id DESC", "0::float8")
        case .latest:
            if let cursor = query.cursor {
                sql.where("(p.posted_at, p.id) < (to_timestamp(\(sql.bind(cursor.key))), \(sql.bind(cursor.id)))")
            }
            return ("p.posted_at DESC, p.id DESC", "extract(epoch FROM p.posted_at)::float8")
        case .popular:
            if let cursor = query.cursor {
                sql.where("(p.likes_count, p.id) < (\(sql.bind(Int(cursor.key))), \(sql.bind(cursor.id)))")
            }
            return ("p.likes_count DESC, p.id DESC", "p.likes_count::float8")
        case .endingSoon:
            if let cursor = query.cursor {
                sql.where("(p.group_buying_end, p.id) > (to_timestamp(\(sql.bind(cursor.key))), \(sql.bind(cursor.id)))")
            }
            return ("p.group_buying_end ASC, p.id ASC", "extract(epoch FROM p.group_buying_end)::float8")
        }
    }

    /// Makes `%`, `_` and `\` match themselves in a LIKE pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}

/// Collects WHERE conditions built from fixed SQL fragments and numbered parameters.
/// User input only ever travels as parameters.
private struct FeedSQL {
    private(set) var parameters: [any PostgresEncodable] = []
    /// A `WITH` clause the conditions refer to, or empty.
    var with = ""
    private var conditions: [String] = []

    mutating func bind(_ value: any PostgresEncodable) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    mutating func `where`(_ condition: String) {
        conditions.append(condition)
    }

    var whereClause: String {
        conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }
}
