import Domain
import Foundation
import PostgresDriver

/// How a search reads (see `PostgresFeedRepository.filtered` and docs/scaling.md "How a search
/// reads"): estimates, bounded walks, counts and the matches' clause.
extension PostgresFeedRepository {
    /// How a search's page reads, and what is known of its matches.
    struct SearchPlan {
        /// How the page reads first.
        var read: SearchRead
        /// The walk to take when a capped read through the index finds more than the bound.
        var walkIfMany: Int?
        /// The matches, counted up to the bound, when the page walks.
        var count: Int?
        /// The term's estimated frequency among posts (its rarest gram's).
        let fraction: Double
        /// The planner's estimate of the posts that pass the other filters.
        let candidates: Double
        /// Whether `fraction` is the term's own frequency, not a bound (``SearchStatistics/Term/fractionIsExact``).
        var fractionIsExact = false
        /// The matches under every filter, estimated from the sample (``SearchSample``), for
        /// a term whose frequency the statistics only bound.
        var sampled: Int?

        /// Whether a total past the bound may be an estimate rather than a count.
        var estimates: Bool { fractionIsExact || sampled != nil }

        /// The matches past the bound, estimated: from the sample, or the term's frequency
        /// times the posts under the other filters.
        var estimatedMatches: Int { sampled ?? Int((fraction * candidates).rounded()) }
    }

    /// How a search reads. Walk the requested order when that is estimated cheaper than
    /// reading every match, and only after finding that over the bound match: a one-gram
    /// term's frequency from the statistics times the planner's estimate for the other
    /// filters is wrong for filters that exclude the term (`search=코&category=fitness`:
    /// none); a longer term's is only a bound, its rarest gram's (`siwoo121`: each bigram in
    /// ~10 % of posts, the term in 57), so it is counted in the sample (``planSampled``).
    /// Otherwise read the matches once through the index, which counts them exactly as well.
    func planSearch(_ term: SearchStatistics.Term, _ query: FeedQuery, reach: Int, matches: FeedSQL, now: Date,
                    _ connection: PostgresConnection) throws -> SearchPlan {
        let bound = FeedPage.exactTotalLimit
        let candidates = try Self.candidates(query, now: now, posts: term.posts, connection)
        var plan = SearchPlan(read: Self.everyMatch(query), fraction: term.fraction, candidates: candidates, fractionIsExact: term.fractionIsExact)
        let estimate = (fraction: term.fraction * candidates / max(term.posts, 1), posts: term.posts)
        let everyMatch = term.fraction * term.posts
        let walkable = Self.walkBound(reach: reach, estimate, matches: everyMatch)
        // A term the statistics only bound is sampled, unless even as common as the bound
        // it would not walk (a walk only gets longer, reading every match only cheaper, the
        // rarer it is) and its every match is read anyway: then the read counts them, and
        // the sample would only add its cost (`search=극세사&sort=latest&page=50` on 10 M
        // posts, 150 k matches: 354-378 → 407-449 ms). The default order's read of every
        // match counts the ended ones only up to the bound, and past it takes the sample's.
        if !term.fractionIsExact && (walkable != nil || plan.read == .openFirst) {
            return try planSampled(plan, query, posts: term.posts, reach: reach, matches: matches, connection)
        }
        guard let walk = walkable else { return plan }
        // A one-gram term's frequency is known, so its matches are counted first by walking
        // (any rows, in storage order) when that is estimated cheaper than the index with the
        // other filters' selectivity (`search=52&status=ongoing` walked 61 k posts, 120 ms;
        // `search=_&status=closed` through the index: a 1 M-entry bitmap, 139 ms).
        // A term the statistics put, with the other filters, in over ten times the bound's
        // posts is not counted at all (`search=fa&page=50`: 76 k matches, a 13 k-row count
        // walk before a 13 k-row page walk, 109 ms; `search=수&sort=ending_soon&page=5`: ~20 k,
        // 1,001 read through two 150 k-entry bitmaps, 50 ms, before the walk): the total is an
        // estimate either way, and a walk that does not fill the page (a filter that excludes
        // the term) still falls back to the index.
        if term.isOneGram && term.fraction * candidates > 10 * Double(bound) {
            plan.count = bound + 1
            plan.read = .walk(rows: walk)
            return plan
        }
        if term.isOneGram, let countWalk = Self.walkBound(reach: bound + 1, estimate, matches: everyMatch),
           let count = try Self.walkedCount(matches, walk: countWalk, bound: bound, connection) {
            plan.count = count
            plan.read = .walk(rows: walk)
            return plan
        }
        // Otherwise (the count walk found no more than the bound, or ran out) read at most
        // `bound + 1` matches through the index, which is the whole answer when there are no
        // more (counting first and reading again cost two index passes, 3× the database
        // time), and walk when there are.
        plan.read = .matched(limit: bound)
        plan.walkIfMany = walk
        return plan
    }

    /// How a search reads whose term's frequency the statistics only bound (a term of
    /// several grams, or a gram too rare to be listed): from its matches in the sample
    /// (``SearchSample``). Few: read them all once through the full index, counted (the
    /// default order's two reads, open and ended matches apart, read a long term's posting
    /// lists twice: `search=hajun927&page=3` on 1 M posts, 71 matches, went from 295 to 135
    /// requests/s under 64 connections). Many: walk the order when that is cheaper, the
    /// total estimated from the sample. Before, such a term read up to 1,001
    /// matches, then walked as if as common as its rarest gram: `search=크림 12` on 10 M
    /// posts (3,461 matches, its rarest gram in ~3 % of posts) found 1 match in 2,678 rows
    /// and then read every match: 120–250 ms where reading them is ~50 ms; and a term a
    /// quarter as common as its rarest gram walked and reported a total four times too high.
    func planSampled(_ plan: SearchPlan, _ query: FeedQuery, posts: Double, reach: Int, matches: FeedSQL,
                     _ connection: PostgresConnection) throws -> SearchPlan {
        var plan = plan
        // A term whose bound already puts it in fewer posts than an estimate needs is read
        // without sampling (the sample's statement cost `search=hajun927&page=3` on 1 M
        // posts 7 % of its requests per second under 64 connections).
        let sampled = plan.fraction * posts < Double(SearchSample.minimum * SearchSample.modulus) ? nil
            : try shared.searchSample.estimate(query, matches, connection)
        guard let sampled else {
            plan.read = .matched(limit: nil)
            return plan
        }
        plan.sampled = sampled
        let estimated = Double(sampled)
        if let walk = Self.walkBound(reach: reach, (fraction: estimated / max(plan.candidates, 1), posts: plan.candidates), matches: estimated) {
            plan.read = .walk(rows: walk)
            plan.count = FeedPage.exactTotalLimit + 1
        }
        return plan
    }

    /// The planner's estimate of the posts that pass `query`'s conditions other than a
    /// search (`posts` when there are none). Without the window bounds' conditions: the
    /// planner takes them as independent of the date range they follow from, and
    /// `search=a` on a day in June was estimated at 7 k matches for 43 k (54 k without).
    static func candidates(_ query: FeedQuery, now: Date, posts: Double, _ connection: PostgresConnection) throws -> Double {
        let rest = conditions(query.withoutSearch, now: now, windows: nil)
        if rest.all.isEmpty && query.search != nil { return posts }
        return Double(try estimate("SELECT FROM posts p \(rest.all.whereClause)", connection))
    }

    /// How many rows a search may walk along an order before it gives up for the index, or
    /// `nil` when reading every match through the index is estimated cheaper. A walk reads
    /// reach ÷ density rows, each ~3× the cost of a match read through the index (7 µs
    /// against 2 µs on 1 M posts: an index probe and a heap visit); the index reads
    /// `matches` (frequency × posts by default). The budget is four times the expected
    /// walk (the frequency is the rarest gram's, an upper bound), cut where giving up would
    /// cost more than the index read it falls back to: at 20,000 rows (~60 ms), or a third
    /// of the matches when they are more. A flat 20,000 sent `search=그+&sort=popular&page=50`
    /// on 10 M posts (~33 k rows to walk) to read its ~300 k matches after the walk: 2 s,
    /// the statement timeout.
    static func walkBound(reach: Int, _ estimate: (fraction: Double, posts: Double), matches: Double? = nil) -> Int? {
        let expected = Double(reach) / estimate.fraction
        let matches = matches ?? estimate.fraction * estimate.posts
        guard estimate.fraction > 0, 3 * expected < matches else { return nil }
        return Int(min(max(20_000, matches / 3), 4 * expected))
    }

    /// The matches of a search counted along `walk` rows (in storage order), when more
    /// than `bound` are found there; otherwise `nil`.
    static func walkedCount(_ sql: FeedSQL, walk: Int, bound: Int, _ connection: PostgresConnection) throws -> Int? {
        let statement: SQL = "SELECT count(*)::int FROM (SELECT FROM \(sql.walk(order: nil, column: nil, rows: walk)) LIMIT \(raw: bound + 1)) x"
        guard let row = try walking(connection, rows: walk, { Array(try $0.queryPlannedForValues(statement)) })?.first else { return nil }
        let count: Int = try row.decode(0)
        return count > bound ? count : nil
    }

    /// The matches of a search counted through the index, up to `bound + 1` (all of them
    /// without a bound).
    static func searchCount(_ sql: FeedSQL, bound: Int?, _ connection: PostgresConnection) throws -> Int {
        let limit: SQL = bound.map { " LIMIT \(raw: $0 + 1)" } ?? ""
        return try throughIndexes(connection) {
            try $0.queryPlannedForValues("SELECT count(*)::int FROM (SELECT FROM posts p \(sql.matchedConditions.whereClause)\(limit)) x").single().decode(0)
        }
    }

    /// Runs a walk of at most `rows` rows for at most ``walkTimeoutMilliseconds(rows:)``, or
    /// gives `nil`. A walk's budget counts the rows that pass the other filters, and a filter
    /// correlated with the order can make it pass nearly every post first (a one-day date
    /// range in May walked `latest` from December: 1.1 s); cut short, the request reads
    /// through the index instead.
    static func walking<T>(_ connection: PostgresConnection, rows: Int, _ body: (PostgresConnection) throws -> T) throws -> T? {
        do {
            return try connection.transaction { connection in
                try connection.query("SELECT set_config('statement_timeout', \(String(walkTimeoutMilliseconds(rows: rows))), true)")
                return try body(connection)
            }
        } catch let error as PostgresError where error.code == .queryTimeout {
            return nil
        }
    }

    /// How long a walk of `rows` rows may run: 10 µs a row, the most one cost on 10 M posts
    /// (an index entry, a primary-key probe and a heap visit for the search: 9 µs), at
    /// least 150 ms and at most a second, half the statement timeout, so that the index
    /// read after it still has time. A flat 150 ms cut `search=ds&page=50` (13 k rows,
    /// 120 ms warm) short whenever its pages were cold, and the fallback read its ~700 k
    /// matches into the statement timeout: a 503.
    static func walkTimeoutMilliseconds(rows: Int) -> Int {
        min(1_000, max(150, rows / 100))
    }

    /// Runs `body` with every table read through bitmap index scans: a search that does not
    /// walk reads its matches through the gram index. Left to choose, the planner prices a
    /// term and a category as independent and walks an order for matches that are not
    /// there (`search=코&category=fitness&sort=popular`: 2 s through all 1 M posts, for none).
    static func throughIndexes<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.transaction { connection in
            try connection.query("""
                SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true),
                       set_config('enable_indexonlyscan', 'off', true)
                """)
            return try body(connection)
        }
    }

    /// `WITH matched AS MATERIALIZED (…)`: a search's matches with their sort keys, read
    /// once through the index for the page, its sections and its count.
    static func matchedClause(_ sql: FeedSQL, limit: Int?, openAt dayStart: Date? = nil) -> SQL {
        let cut: SQL = limit.map { " LIMIT \(raw: $0 + 1)" } ?? ""
        let open: SQL = dayStart.map { " AND p.group_buying_end >= \($0)" } ?? ""
        return """
            matched AS MATERIALIZED (
                SELECT p.id, p.group_buying_start, p.group_buying_end, p.posted_at, p.likes_count FROM posts p \(sql.matchedConditions.whereClause)\(open)\(cut))
            """
    }

    /// The total of an ``SearchRead/openFirst`` read: the open matches (`matched`) and the
    /// ended ones. With `estimable` (``openFirstCount(_:sql:plan:bound:_:)`` may estimate
    /// past the bound) the ended ones are counted up to `bound + 1`, and past that the total
    /// is −1 − the open matches; otherwise all are counted here, in the page's statement
    /// (counting them in a statement of its own read the gram index's postings once more:
    /// ~40 ms at 10 M posts).
    static func openFirstTotal(_ sql: FeedSQL, dayStart: Date, bound: Int, estimable: Bool) -> SQL {
        let ended: SQL = "SELECT FROM posts p WHERE p.group_buying_end < \(dayStart)\(sql.matchedConditions.andClause)"
        guard estimable else {
            return "((SELECT count(*)::int FROM matched) + (SELECT count(*)::int FROM (\(ended)) x))"
        }
        return """
            (SELECT CASE WHEN e.n > \(raw: bound) THEN -1 - (SELECT count(*)::int FROM matched) ELSE (SELECT count(*)::int FROM matched) + e.n END
             FROM (SELECT count(*)::int AS n FROM (\(ended) LIMIT \(raw: bound + 1)) x) e)
            """
    }

    /// The matches of an ``SearchRead/openFirst`` read from its total: exact, or past the
    /// bound of ended matches, for a one-gram term the statistics list, an estimate (its
    /// frequency times the posts under the other filters, as a walked search's total),
    /// flagged. Any other term's matches are counted: its frequency is only a bound, and
    /// neither that nor the open matches scaled up is within 10 % (`search=#` on the demo
    /// data: 1,001 from the statistics, 2,809 from its open posts, 5,000 counted).
    static func openFirstCount(_ total: Int, sql: FeedSQL, plan: SearchPlan?, bound: Int,
                               _ connection: PostgresConnection) throws -> (count: Int, exact: Bool) {
        guard total < 0 else { return (total, true) }
        // Only an estimable plan's total is ever negative (``openFirstTotal``).
        guard let plan, plan.estimates else { return (try searchCount(sql, bound: nil, connection), true) }
        let open = -1 - total
        return (max(open + bound + 1, plan.estimatedMatches), false)
    }

    /// How a search reads every match for `query`: in the default order with both its
    /// sections, the open ones first (``SearchRead/openFirst``).
    static func everyMatch(_ query: FeedQuery) -> SearchRead {
        query.sort == .default && query.dateRange == nil && query.status == nil ? .openFirst : .matched(limit: nil)
    }

    /// The planner's row estimate for `sql` (a `SELECT` without joins).
    static func estimate(_ statement: SQL, _ connection: PostgresConnection) throws -> Int {
        // The first line: "Seq Scan on posts p  (cost=0.00..76386.50 rows=671411 width=0)".
        let line: String = try connection.queryPlannedForValues("EXPLAIN \(statement)").first.map { try $0.decode(0) } ?? ""
        guard let range = line.range(of: " rows="), let value = Int(line[range.upperBound...].prefix { $0.isNumber }) else {
            throw PostgresError(message: "no row estimate in \(line)")
        }
        return value
    }
}

/// How a search's page reads its posts (see `PostgresFeedRepository.filtered`).
enum SearchRead: Equatable {
    /// Along the requested order, at most `rows` rows of it, filtered by the search.
    case walk(rows: Int)
    /// The matches, once through the index, then sorted; at most `limit + 1` of them when
    /// a limit is given (the page is then complete only if fewer match).
    case matched(limit: Int?)
    /// The default order's matches: those open at the day's start once through the index
    /// (the live posts' one, ``LiveSearchIndex``), the ended ones only as far as the page
    /// reaches into them, and counted up to the bound. Reading every match for the open
    /// section's first 1,000 read the ended ones too: `search=그래놀라&page=20` on 10 M
    /// posts read 154 k matches to rank 22.6 k open ones (0.5 s warm, 2 s cold).
    case openFirst

    var readsMatches: Bool {
        switch self {
        case .matched, .openFirst: true
        case .walk: false
        }
    }
}
