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
    private let searchStatistics = SearchStatistics()

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
            return try self.filtered(query, day: day, now: now, viewer: viewer, connection)
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
        return FeedPage(items: items, total: total, hasMore: (query.page - 1) * query.limit + items.count < total, nextCursor: nil)
    }

    // MARK: - Filtered feeds and keyset sorts

    private func filtered(_ query: FeedQuery, day: KoreaDay, now: Date, viewer: UserID?, _ connection: PostgresConnection) throws -> FeedPage {
        let offset = query.cursor == nil ? (query.page - 1) * query.limit : 0
        let bound = FeedPage.exactTotalLimit
        var otherCandidates: Double?
        var sql = Self.conditions(query, now: now)
        let matches = sql
        var searchEstimate = (fraction: 0.0, posts: 0.0)
        var total: String
        var searchCount: Int?
        var read: SearchRead?
        var pendingWalk: Int?
        var counted = true
        if let search = query.search {
            // How a search reads. Walk the requested order when that is estimated cheaper
            // than reading every match (the term's frequency — its rarest gram's, from the
            // statistics — times the planner's estimate for the other filters), and only
            // after counting, up to the bound, that over `bound` posts match: the estimates
            // are wrong for terms whose grams are common apart and rare together
            // (`siwoo121`: each bigram in ~10 % of posts, the term in 57) and for filters
            // that exclude the term (`search=코&category=fitness`: none). Otherwise read the
            // matches once through the index, which counts them exactly as well.
            let term = try searchStatistics.estimate(search, connection)
            searchEstimate = (term.fraction, term.posts)
            otherCandidates = try Self.candidates(query, now: now, posts: term.posts, connection)
            let density = term.fraction * otherCandidates! / max(term.posts, 1)
            read = .matched(limit: nil)
            if let walk = Self.walkBound(reach: offset + query.limit + 1, (density, term.posts), matches: term.fraction * term.posts) {
                if term.isOneGram {
                    // The count walks (any rows, in storage order) for a one-gram term, whose
                    // frequency is known, when that is estimated cheaper with the other
                    // filters' selectivity (`search=52&status=ongoing` walked 61 k posts,
                    // 120 ms; `search=_&status=closed` through the index: a 1 M-entry
                    // bitmap, 139 ms).
                    let countWalk = Self.walkBound(reach: bound + 1, (density, term.posts), matches: term.fraction * term.posts)
                    let count = try Self.searchCount(matches, walk: countWalk, bound: bound, connection)
                    if count > bound {
                        searchCount = count
                        read = .walk(rows: walk)
                    }
                } else {
                    // A longer term's frequency is an upper bound: read at most `bound + 1`
                    // matches through the index, which is the whole answer when there are
                    // no more (`search=크림 12`: 355 of the 30 k posts holding 크림; counting
                    // first and reading again cost two index passes, 3× the database time),
                    // and walk otherwise.
                    read = .matched(limit: bound)
                    pendingWalk = walk
                }
            }
            total = "(SELECT count(*)::int FROM matched)"
            counted = false
        } else {
            // The total rides along as an uncorrelated subquery (evaluated once): from
            // counters when only a category narrows the feed, by counting the matches up to
            // the bound otherwise. Counting needs no joins: every condition is on posts, and
            // the foreign keys are NOT NULL (joined, closed posts took 345 ms to count on
            // 1 M posts; alone, 86 ms).
            let counters = Self.counterTotal(query, day: day, now: now, sql: &sql)
            counted = counters == nil
            total = counters ?? "(SELECT count(*)::int FROM (SELECT FROM posts p \(matches.matching.whereClause) LIMIT \(bound + 1)) x)"
        }
        var rows = try page(query, day: day, viewer: viewer, offset: offset, total: read?.readsMatches == false ? "NULL::int" : total,
                            sql: sql, read: read, connection)
        if let walk = pendingWalk, try rows.first?.decode(0, as: Int.self) ?? 0 > bound {
            // More than `bound` match: walk after all.
            searchCount = try rows.first!.decode(0, as: Int.self)
            read = .walk(rows: walk)
            rows = try page(query, day: day, viewer: viewer, offset: offset, total: "NULL::int", sql: sql, read: read, connection)
        }
        if case .walk = read, rows.count <= query.limit {
            // The walk read its budget without filling the page: through the index after all.
            read = .matched(limit: nil)
            searchCount = nil
            rows = try page(query, day: day, viewer: viewer, offset: offset, total: total, sql: sql, read: read, connection)
        }
        let items = try rows.prefix(query.limit).map { try PostRows.decode($0, from: 1) }
        var count: Int
        if let searchCount {
            count = searchCount
            counted = true
        } else if let first = rows.first {
            count = try first.decode(0)
        } else if query.search != nil {
            // An empty page (past the end) carries no row to read the total from.
            count = try Self.searchCount(matches, walk: nil, bound: .max - 1, connection)
        } else {
            var counters = FeedSQL()
            if let counted = Self.counterTotal(query, day: day, now: now, sql: &counters) {
                count = try connection.query("SELECT \(counted)", counters.parameters).first!.decode(0)
            } else {
                count = try connection.query("SELECT \(total)", matches.parameters).first!.decode(0)
            }
        }
        var exact = true
        if counted && count > bound {
            // Past the bound, an estimate: the planner's for the conditions other than a
            // search (all posts when there are none), times the term's frequency (its
            // rarest gram's: the planner multiplies a term's gram frequencies as if
            // independent, far too low for the bigrams of one word).
            let rest = try otherCandidates ?? Self.candidates(query, now: now, posts: searchEstimate.posts, connection)
            count = max(bound + 1, Int((query.search == nil ? rest : rest * searchEstimate.fraction).rounded()))
            exact = false
        }
        var next: FeedCursor?
        if query.sort != .default, rows.count > query.limit, let last = rows.prefix(query.limit).last {
            next = FeedCursor(sort: query.sort, key: try last.decode(19), id: try last.decode(1))
        }
        return FeedPage(items: items, total: count, totalIsExact: exact, hasMore: rows.count > query.limit, nextCursor: next)
    }

    /// The planner's estimate of the posts that pass `query`'s conditions other than a
    /// search (`posts` when there are none).
    private static func candidates(_ query: FeedQuery, now: Date, posts: Double, _ connection: PostgresConnection) throws -> Double {
        let rest = conditions(query.withoutSearch, now: now)
        if rest.all.isEmpty && query.search != nil { return posts }
        return Double(try estimate("SELECT FROM posts p \(rest.all.whereClause)", rest.parameters, connection))
    }

    /// How many rows a search may walk along an order before it gives up for the index, or
    /// `nil` when reading every match through the index is estimated cheaper. A walk reads
    /// reach ÷ density rows, each ~3× the cost of a match read through the index (7 µs
    /// against 2 µs on 1 M posts: an index probe and a heap visit); the index reads
    /// `matches` (frequency × posts by default). The budget is four times the expected
    /// walk, at most 20,000 rows (~60 ms): the frequency is the rarest gram's, an upper bound.
    private static func walkBound(reach: Int, _ estimate: (fraction: Double, posts: Double), matches: Double? = nil) -> Int? {
        let expected = Double(reach) / estimate.fraction
        guard estimate.fraction > 0, 3 * expected < (matches ?? estimate.fraction * estimate.posts) else { return nil }
        return Int(min(20_000, 4 * expected))
    }

    /// The matches of a search, counted up to `bound + 1`: through the index, or along any
    /// `walk` rows first (redone through the index when they hold fewer).
    private static func searchCount(_ sql: FeedSQL, walk: Int?, bound: Int, _ connection: PostgresConnection) throws -> Int {
        if let walk {
            let text = """
                SELECT count(*)::int FROM (SELECT FROM (SELECT p.* FROM posts p \(sql.conditions.whereClause) LIMIT \(walk)) p
                                           \(sql.searchConditions.whereClause) LIMIT \(bound + 1)) x
                """
            let parameters = sql.parameters
            let rows = try walking(connection) { Array(try $0.queryPlannedForValues(text, parameters)) }
            if let first = rows?.first {
                let walked: Int = try first.decode(0)
                if walked > bound { return walked }
            }
        }
        let limit = bound < Int.max - 1 ? " LIMIT \(bound + 1)" : ""
        return try throughIndexes(connection) {
            try $0.queryPlannedForValues("SELECT count(*)::int FROM (SELECT FROM posts p \(sql.matching.whereClause)\(limit)) x",
                                         sql.parameters).first!.decode(0)
        }
    }

    /// Runs a walk for at most ``walkTimeout``, or gives `nil`. A walk's budget counts the
    /// rows that pass the other filters, and a filter correlated with the order can make it
    /// pass nearly every post first (a one-day date range in May walked `latest` from
    /// December: 1.1 s); cut short, the request reads through the index instead.
    private static func walking<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T? {
        do {
            return try connection.transaction { connection in
                try connection.query("SELECT set_config('statement_timeout', $1, true)", [String(walkTimeoutMilliseconds)])
                return try body(connection)
            }
        } catch let error as PostgresError where error.code == .queryTimeout {
            return nil
        }
    }

    /// How long a walk may run: a walk that pays off is done in well under this.
    static let walkTimeoutMilliseconds = 150

    /// Runs `body` with every table read through bitmap index scans: a search that does not
    /// walk reads its matches through the gram index. Left to choose, the planner prices a
    /// term and a category as independent and walks an order for matches that are not
    /// there (`search=코&category=fitness&sort=popular`: 2 s through all 1 M posts, for none).
    private static func throughIndexes<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.transaction { connection in
            try connection.query("""
                SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true),
                       set_config('enable_indexonlyscan', 'off', true)
                """)
            return try body(connection)
        }
    }

    /// The page's rows (one more than the limit when another follows): the total, the
    /// post's columns and its sort key. The page's ids are cut first, then joined for their
    /// columns: a projection runs for every row OFFSET skips too (joins, is_liked; item
    /// 1,000 of a search: 270 ms, half of it for rows dropped).
    private func page(_ query: FeedQuery, day: KoreaDay, viewer: UserID?, offset: Int, total: String, sql: FeedSQL, read: SearchRead?,
                      _ connection: PostgresConnection) throws -> [PostgresRow] {
        var sql = sql
        let text: String
        if query.sort == .default && query.dateRange == nil && query.status != .closed {
            text = Self.sectionedPage(query, day: day, viewer: viewer, offset: offset, total: total, read: read, sql: &sql)
        } else {
            text = try Self.orderedPage(query, viewer: viewer, offset: offset, total: total, read: read, sql: &sql)
        }
        let parameters = sql.parameters
        switch read {
        case nil:
            return Array(try connection.query(text, parameters))
        case .walk:
            // A search's best plan depends on the term: planned per request. An empty
            // answer (the walk gave up) sends the page through the index.
            return try Self.walking(connection) { Array(try $0.queryPlannedForValues(text, parameters)) } ?? []
        case .matched:
            // Never a scan of every post for the matches: the planner may misjudge a term
            // as most of them.
            return try connection.transaction { connection in
                try connection.query("SELECT set_config('enable_seqscan', 'off', true)")
                return Array(try connection.queryPlannedForValues(text, parameters))
            }
        }
    }

    /// `WITH matched AS MATERIALIZED (…)`: a search's matches with their sort keys, read
    /// once through the index for the page, its sections and its count.
    private static func matchedClause(_ sql: FeedSQL, limit: Int?) -> String {
        """
        matched AS MATERIALIZED (
            SELECT p.id, p.group_buying_start, p.group_buying_end, p.posted_at, p.likes_count FROM posts p \(sql.matching.whereClause)\(limit.map { " LIMIT \($0 + 1)" } ?? ""))
        """
    }

    /// A page in a keyset order, by date range or of closed posts (see ``page``).
    private static func orderedPage(_ query: FeedQuery, viewer: UserID?, offset: Int, total: String, read: SearchRead?, sql: inout FeedSQL) throws -> String {
        let (order, keyColumn) = try order(query, sql: &sql)
        var with = ""
        let source: String
        switch read {
        case nil:
            source = "posts p \(sql.all.whereClause)"
        case .walk(let rows):
            source = "(SELECT p.* FROM posts p \(sql.unsearched.whereClause) ORDER BY \(order) LIMIT \(rows)) p \(sql.searchConditions.whereClause)"
        case .matched(let limit):
            with = "WITH \(matchedClause(sql, limit: limit)) "
            source = "matched p \(sql.cursorConditions.whereClause)"
        }
        let viewerParameter = sql.bindNumber(viewer?.rawValue)
        // LIMIT is written into the text (one statement per limit, at most 50) so the
        // planner knows the page is small; OFFSET only when there is one.
        return """
            \(with)SELECT \(total), \(PostRows.columns(viewer: viewerParameter)), \(keyColumn)
            FROM (SELECT p.id FROM \(source) ORDER BY \(order)\(offset > 0 ? " OFFSET \(sql.bind(offset))" : "") LIMIT \(query.limit + 1)) page
            JOIN posts p ON p.id = page.id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
            ORDER BY \(order)
            """
    }

    /// The conditions of `query` on posts `p` (the keyset cursor's are added by `order`).
    /// Built the same way every time, so two builds number their parameters alike.
    private static func conditions(_ query: FeedQuery, now: Date) -> FeedSQL {
        var sql = FeedSQL()
        if let category = query.category { sql.where("p.category_id = \(sql.bind(category.rawValue))") }
        if let influencer = query.influencer { sql.where("p.influencer_id = \(sql.bind(influencer.rawValue))") }
        if let search = query.search { sql.search(search) }
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
        return sql
    }

    /// The default order over filtered posts, as the unfiltered feed orders them: posts
    /// open at midnight by the day's rank (`feed_ranks`), then the others by end time,
    /// newest first. Each section is its own ordered scan cut at the page's reach, so a
    /// search matching 680 k posts reads a few hundred rows, not all of them (sorting every
    /// match by a computed rank: over 2 s for `search=a`). A status other than closed
    /// (which is not ordered here) implies the post was open at midnight: only the first
    /// section, without restating that (the planner, multiplying the two conditions'
    /// selectivities, misjudged `status=upcoming` 40-fold and hashed 70 k posts). With
    /// `walk`, each section reads at most that many rows of its order, then filters.
    private static func sectionedPage(_ query: FeedQuery, day: KoreaDay, viewer: UserID?, offset: Int, total: String, read: SearchRead?,
                                      sql: inout FeedSQL) -> String {
        let dayText = sql.bind(day.description)
        let reach = sql.bind(offset + query.limit + 1)
        // The matches carry the category condition already.
        let category = read?.readsMatches == true ? "" : query.category.map { " AND f.category_id = \(sql.bind($0.rawValue))" } ?? ""
        let dayStart = query.status == nil || read?.readsMatches == true ? sql.bind(day.start) : ""
        // Each section's rows: from the order walked, from the matches, or from posts.
        var matched = "", ranks = "", closed = ""
        switch read {
        case nil:
            ranks = "feed_ranks f JOIN posts p ON p.id = f.post_id WHERE f.day = \(dayText)::date\(category)"
                + (dayStart.isEmpty ? "" : " AND p.group_buying_end >= \(dayStart)") + sql.all.andClause
            closed = "posts p WHERE p.group_buying_end < \(dayStart)\(sql.all.andClause)"
        case .walk(let rows):
            ranks = """
                (SELECT f.* FROM feed_ranks f WHERE f.day = \(dayText)::date\(category) ORDER BY f.rank, f.post_id LIMIT \(rows)) f
                JOIN posts p ON p.id = f.post_id WHERE true\(sql.walked.andClause)
                """
            closed = """
                (SELECT p.* FROM posts p WHERE p.group_buying_end < \(dayStart)\(sql.unsearched.andClause)
                 ORDER BY p.group_buying_end DESC, p.id DESC LIMIT \(rows)) p \(sql.searchConditions.whereClause)
                """
        case .matched(let limit):
            matched = "\(matchedClause(sql, limit: limit)), "
            // The open matches' ranks, each found by its key: as a join, PostgreSQL hashed
            // all of the day's 143 k ranks for 2 k open matches (72 ms).
            ranks = """
                (SELECT m.id AS post_id, (SELECT f.rank FROM feed_ranks f WHERE f.day = \(dayText)::date AND f.post_id = m.id) AS rank
                 FROM matched m WHERE m.group_buying_end >= \(dayStart)) f WHERE f.rank IS NOT NULL
                """
            closed = "matched p WHERE p.group_buying_end < \(dayStart)"
        }
        var closedSection = ""
        if query.status == nil {
            // The closed section supplies only what the open one lacks: a page inside the
            // open section reads none of it (item 500 of a search: 33 ms saved).
            closedSection = """
                UNION ALL
                (SELECT r.id, 1, row_number() OVER (ORDER BY r.group_buying_end DESC, r.id DESC)
                 FROM (SELECT p.id, p.group_buying_end FROM \(closed)
                       ORDER BY p.group_buying_end DESC, p.id DESC LIMIT (SELECT \(reach) - count(*) FROM open)) r)
                """
        }
        let viewerParameter = sql.bindNumber(viewer?.rawValue)
        // The page's ids are cut first, then joined for their columns (see `page`).
        return """
            WITH \(matched)open AS MATERIALIZED (
                SELECT f.post_id, f.rank FROM \(ranks)
                ORDER BY f.rank, f.post_id LIMIT \(reach))
            SELECT \(total), \(PostRows.columns(viewer: viewerParameter)), 0::float8
            FROM (SELECT r.post_id, r.section, r.ordinal
                  FROM ((SELECT post_id, 0 AS section, row_number() OVER (ORDER BY rank, post_id) AS ordinal FROM open)
                        \(closedSection)) r
                  ORDER BY r.section, r.ordinal\(offset > 0 ? " OFFSET \(sql.bind(offset))" : "") LIMIT \(query.limit + 1)) r
            JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
            ORDER BY r.section, r.ordinal
            """
    }

    /// The planner's row estimate for `sql` (a `SELECT` without joins).
    private static func estimate(_ sql: String, _ parameters: [any PostgresEncodable], _ connection: PostgresConnection) throws -> Int {
        // The first line: "Seq Scan on posts p  (cost=0.00..76386.50 rows=671411 width=0)".
        let line: String = try connection.queryPlannedForValues("EXPLAIN \(sql)", parameters).first!.decode(0)
        guard let range = line.range(of: " rows="), let value = Int(line[range.upperBound...].prefix { $0.isNumber }) else {
            throw PostgresError(message: "no row estimate in \(line)")
        }
        return value
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
    private static func order(_ query: FeedQuery, sql: inout FeedSQL) throws -> (String, String) {
        switch query.sort {
        case .default where query.dateRange != nil:
            return ("p.group_buying_start DESC, p.id DESC", "0::float8")
        case .default:
            // status=closed (the other default orders are sectionedPage): most recently
            // closed first, straight from the posts_end index. The sectioned order would
            // compute each post's section first (858 k closed posts on the bench dataset).
            return ("p.group_buying_end DESC, p.id DESC", "0::float8")
        case .latest:
            if let cursor = query.cursor {
                sql.after("(p.posted_at, p.id) < (to_timestamp(\(sql.bind(cursor.key))), \(sql.bind(cursor.id)))")
            }
            return ("p.posted_at DESC, p.id DESC", "extract(epoch FROM p.posted_at)::float8")
        case .popular:
            if let cursor = query.cursor {
                sql.after("(p.likes_count, p.id) < (\(sql.bind(Int(cursor.key))), \(sql.bind(cursor.id)))")
            }
            return ("p.likes_count DESC, p.id DESC", "p.likes_count::float8")
        case .endingSoon:
            if let cursor = query.cursor {
                sql.after("(p.group_buying_end, p.id) > (to_timestamp(\(sql.bind(cursor.key))), \(sql.bind(cursor.id)))")
            }
            return ("p.group_buying_end ASC, p.id ASC", "extract(epoch FROM p.group_buying_end)::float8")
        }
    }
}

/// How a search's page reads its posts (see `PostgresFeedRepository.filtered`).
private enum SearchRead: Equatable {
    /// Along the requested order, at most `rows` rows of it, filtered by the search.
    case walk(rows: Int)
    /// The matches, once through the index, then sorted; at most `limit + 1` of them when
    /// a limit is given (the page is then complete only if fewer match).
    case matched(limit: Int?)

    var readsMatches: Bool {
        if case .matched = self { return true }
        return false
    }
}
