import Domain
import Foundation
import PostgresDriver
import Synchronization

/// ``FeedRepository`` over `posts`, the per-day `feed_ranks` order and the counters that
/// triggers keep (see `migrations/0004_feed_order_and_counters.sql`).
///
/// The unfiltered default feed (any category) reads the day's order from an index and
/// takes its total from counters: no per-request hashing or counting of open posts.
/// Filtered feeds (search, status, date range, influencer) match small sets and count them.
public struct PostgresFeedRepository: FeedRepository {
    /// What every request's copy shares: the prepared days, the search statistics.
    final class Shared: Sendable {
        /// Days whose order exists, with the primary's position once it did: a replica
        /// serves a day's pages only when it has replayed that far (a day prepared a moment
        /// ago by this request is not on a lagging replica yet).
        let preparedDays = Mutex<[KoreaDay: WALPosition]>([:])
        let searchStatistics = SearchStatistics()
        let searchSample = SearchSample()
        /// Whether a request of this instance is building a day's order now (the others
        /// answer at once rather than queue behind it).
        let requestBuilding = Mutex(false)
    }

    let pool: ScopedPool
    /// Pages and counts: a replica when one is healthy and has the caller's writes.
    private let reads: ScopedReads
    let shared: Shared
    var searchStatistics: SearchStatistics { shared.searchStatistics }

    /// Open posts ranked per step of building a day's order (migration 0026). Post writes
    /// wait for at most one step: at 1 M posts a step of 2,000 averaged 60–75 ms, and the
    /// longest wait of a post write during a build was 167–332 ms.
    let buildBatch: Int

    public init(pool: PostgresPool, reads: (any ReadPoolSource)? = nil, buildBatch: Int = 2_000) {
        self.reads = ScopedReads(reads ?? pool)
        self.pool = ScopedPool(pool)
        self.shared = Shared()
        self.buildBatch = buildBatch
    }

    private init(copying other: PostgresFeedRepository, scope: RequestScope) {
        pool = other.pool.scoped(scope)
        reads = other.reads.scoped(scope)
        shared = other.shared
        buildBatch = other.buildBatch
    }

    public func scoped(_ scope: RequestScope) -> PostgresFeedRepository { PostgresFeedRepository(copying: self, scope: scope) }

    public func tightenWindowBounds() async throws -> Bool {
        try await pool.statement { connection in try connection.query("SELECT post_window_bounds_tighten()").single().decode(0) }
    }

    public func page(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?) async throws -> FeedPage {
        let dayPosition = shared.preparedDays.withLock { $0[day] }
        return try await reads.readPool(alsoAfter: dayPosition).withConnection { connection in
            if let tag = query.hashtag { return try Self.hashtagPage(query, tag: tag, viewer: viewer, connection) }
            if query.sort == .default && query.search == nil && query.status == nil && query.dateRange == nil && query.influencer == nil {
                return try Self.dailyOrder(query, day: day, viewer: viewer, connection)
            }
            return try self.filtered(query, day: day, now: now, viewer: viewer, connection)
        }
    }

    public func categoryCounts(day: KoreaDay, now: Date) async throws -> [CategoryCount] {
        try await reads.readPool().withConnection { connection in
            // Open now: migration 0016.
            try connection.query("""
                SELECT c.id, c.name, cc.post_count, o.open_count
                FROM categories c
                JOIN category_post_counts cc ON cc.category_id = c.id
                JOIN open_post_counts(\(day.description)::date, \(day.start), \(now)) o ON o.category_id = c.id
                ORDER BY c.sort_order
                """).map { row in
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
        let category = query.category?.rawValue
        let totals: SQL = "category_post_counts" + (category.map { " WHERE category_id = \($0)" } ?? "")
        let page: SQL
        if query.page == 1 {
            // The first page (what the app opens with): the day's first posts by rank, then
            // the newest closed ones if the open section is short, with LIMIT written into
            // the text, so one plain plan serves every request.
            let open: SQL = category.map { " AND f.category_id = \($0)" } ?? ""
            let closed: SQL = category.map { " AND x.category_id = \($0)" } ?? ""
            page = """
                (SELECT u.post_id, u.section, u.ordinal FROM (
                    (SELECT r.post_id, 0 AS section, row_number() OVER (ORDER BY r.rank, r.post_id) AS ordinal
                     FROM (SELECT f.post_id, f.rank FROM feed_ranks f WHERE f.day = \(day.description)::date\(open)
                           ORDER BY f.rank, f.post_id LIMIT \(raw: query.limit)) r)
                    UNION ALL
                    (SELECT r.id, 1, row_number() OVER (ORDER BY r.group_buying_end DESC, r.id DESC)
                     FROM (SELECT x.id, x.group_buying_end FROM posts x WHERE x.group_buying_end < \(day.start)\(closed)
                           ORDER BY x.group_buying_end DESC, x.id DESC LIMIT \(raw: query.limit)) r)) u
                 ORDER BY u.section, u.ordinal LIMIT \(raw: query.limit)) r
                """
        } else {
            // Deeper pages: feed_default_page (migration 0007) cuts the page behind a
            // function declared to return 20 rows, so the join keeps one plan for every OFFSET.
            let filter: SQL = category.map { "\($0)" } ?? "NULL::text"
            page = """
                (SELECT post_id, 0 AS section, ordinal
                 FROM feed_default_page(\(day.description)::date, \(day.start), \(filter), \((query.page - 1) * query.limit), \(query.limit))) r
                """
        }
        let rows = try connection.query("""
            SELECT t.total, \(PostRows.columns(viewer: viewer))
            FROM (SELECT COALESCE(sum(post_count), 0)::int AS total FROM \(totals)) t
            LEFT JOIN (\(page)
                       JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id
                       JOIN categories c ON c.id = p.category_id) ON true
            ORDER BY r.section, r.ordinal
            """)
        var total = 0
        var items: [Post] = []
        for row in rows {
            total = try row.decode(PageRow.total)
            if try row.decode(PageRow.post, as: Int?.self) != nil { items.append(try PostRows.decode(row, from: PageRow.post)) }
        }
        return FeedPage(items: items, total: total, hasMore: (query.page - 1) * query.limit + items.count < total, nextCursor: nil)
    }

    // MARK: - A hashtag's posts

    /// One statement: the total from `hashtag_counts`, the page a range of
    /// `post_hashtags_tag_posted` (migration 0019) in its order, and only those posts
    /// joined. LIMIT is written into the text (a parameter gets a generic plan that
    /// assumes 10 % of the rows).
    private static func hashtagPage(_ query: FeedQuery, tag: String, viewer: UserID?, _ connection: PostgresConnection) throws -> FeedPage {
        let offset = (query.page - 1) * query.limit
        let rows = try connection.query("""
            SELECT t.total, \(PostRows.columns(viewer: viewer))
            FROM (SELECT COALESCE((SELECT posts FROM hashtag_counts WHERE tag = \(tag)), 0) AS total) t
            LEFT JOIN ((SELECT h.post_id, h.posted_at FROM post_hashtags h WHERE h.tag = \(tag)
                        ORDER BY h.posted_at DESC, h.post_id DESC OFFSET \(offset) LIMIT \(raw: query.limit)) r
                       JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id
                       JOIN categories c ON c.id = p.category_id) ON true
            ORDER BY r.posted_at DESC, r.post_id DESC
            """)
        var total = 0
        var items: [Post] = []
        for row in rows {
            total = try row.decode(PageRow.total)
            if try row.decode(PageRow.post, as: Int?.self) != nil { items.append(try PostRows.decode(row, from: PageRow.post)) }
        }
        return FeedPage(items: items, total: total, hasMore: offset + items.count < total, nextCursor: nil)
    }

    // MARK: - Filtered feeds and keyset sorts

    private func filtered(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?, _ connection: PostgresConnection) throws -> FeedPage {
        let offset = query.cursor == nil ? (query.page - 1) * query.limit : 0
        let bound = FeedPage.exactTotalLimit
        // What filters on the window imply (migration 0015), where it narrows what is read:
        // newest first, a search, or a status and a date range that may exclude each other
        // (other orders start at the window already: the read would cost a round trip for
        // nothing). Read in a statement of its own: a post committed between it and the
        // page's may be missing from the page, as if it had been committed a moment later.
        let narrows = query.sort == .latest || query.search != nil || (query.status != nil && query.dateRange != nil)
        let windows = narrows && (query.dateRange != nil || query.status != nil) ? try PostWindowBounds.read(connection) : nil
        if windows?.excludesEverything(query, now: now) == true {
            return FeedPage(items: [], total: 0, hasMore: false, nextCursor: nil)
        }
        let term = try query.search.map { try searchStatistics.estimate($0, connection) }
        var sql = Self.conditions(query, now: now, windows: windows, probe: term?.probe)
        let matches = sql
        if query.sort == .latest, let posted = windows?.postedRange(query, now: now) {
            if let earliest = posted.earliest { sql.imply("p.posted_at >= \(earliest)") }
            if let latest = posted.latest { sql.imply("p.posted_at <= \(latest)") }
        }
        let total: SQL
        var plan: SearchPlan?
        // Counted up to the bound (past it, an estimate): a walked search or a filter no
        // counter keeps. Exact: a search's matches read through the index, or counters.
        var bounded = false
        if let term {
            plan = try planSearch(term, query, reach: offset + query.limit + 1, matches: matches, now: now, connection)
            total = "(SELECT count(*)::int FROM matched)"
        } else {
            // The total rides along as an uncorrelated subquery (evaluated once): from
            // counters when only a category narrows the feed, by counting the matches up to
            // the bound otherwise. Counting needs no joins: every condition is on posts, and
            // the foreign keys are NOT NULL (joined, closed posts took 345 ms to count on
            // 1 M posts; alone, 86 ms).
            let counters = Self.counterTotal(query, day: day, now: now)
            bounded = counters == nil
            total = counters ?? "(SELECT count(*)::int FROM (SELECT FROM posts p \(matches.matching.whereClause) LIMIT \(raw: bound + 1)) x)"
        }
        func read(_ read: SearchRead?) throws -> [PostgresRow] {
            let counted: SQL = switch read {
            case .walk: "NULL::int"
            case .openFirst: Self.openFirstTotal(matches, dayStart: day.start, bound: bound, estimable: plan?.estimates == true)
            case .matched, nil: total
            }
            return try page(query, day: day, viewer: viewer, offset: offset, total: counted, sql: sql, read: read, connection)
        }
        var rows = try read(plan?.read)
        var counted: Int?
        if let walk = plan?.walkIfMany {
            // The matches were read up to the bound. A page after a cursor can be empty
            // though more match beyond the ones read: then they are counted up to the bound.
            let found = try rows.first?.decode(PageRow.total, as: Int.self) ?? Self.searchCount(matches, bound: bound, connection)
            if rows.isEmpty && found <= bound { counted = found }
            if found > bound {
                // More than `bound` match: walk after all.
                plan?.count = found
                plan?.read = .walk(rows: walk)
                rows = try read(plan?.read)
            }
        }
        if case .walk = plan?.read, rows.count <= query.limit {
            // The walk read its budget without filling the page: through the index after all.
            plan?.count = nil
            plan?.read = Self.everyMatch(query)
            rows = try read(plan?.read)
        }
        let items = try rows.prefix(query.limit).map { try PostRows.decode($0, from: PageRow.post) }
        var count: Int
        var exact = true
        if let counted = plan?.count {
            count = counted
            bounded = true
        } else if let first = rows.first, plan?.read == .openFirst {
            (count, exact) = try Self.openFirstCount(try first.decode(PageRow.total), sql: matches, plan: plan, bound: bound, connection)
        } else if let first = rows.first {
            count = try first.decode(PageRow.total)
        } else if plan != nil {
            // An empty page (past the end) carries no row to read the total from.
            count = try counted ?? Self.searchCount(matches, bound: nil, connection)
        } else {
            count = try connection.query("SELECT \(Self.counterTotal(query, day: day, now: now) ?? total)").single().decode(0)
        }
        if bounded && count > bound {
            // Past the bound, an estimate: from the search sample for a term of several
            // grams; for one gram, the planner's for the conditions other than a search
            // (all posts when there are none) times the term's frequency (the planner
            // multiplies a term's gram frequencies as if independent, far too low for the
            // bigrams of one word).
            let estimated = try plan?.estimatedMatches ?? Int(Self.candidates(query, now: now, posts: 0, connection).rounded())
            count = max(bound + 1, estimated)
            exact = false
        }
        var next: FeedCursor?
        if query.sort != .default, rows.count > query.limit, let last = rows.prefix(query.limit).last {
            next = FeedCursor(sort: query.sort, key: try last.decode(PageRow.sortKey), id: try last.decode(PageRow.post))
        }
        return FeedPage(items: items, total: count, totalIsExact: exact, hasMore: rows.count > query.limit, nextCursor: next)
    }
}

/// The columns of a feed page's rows: the total, the post's ``PostRows`` columns, and the
/// sort key (for `next_cursor`), in that order in every page statement.
enum PageRow {
    static let total = 0
    static let post = 1
    static let sortKey = post + PostRows.count
}
