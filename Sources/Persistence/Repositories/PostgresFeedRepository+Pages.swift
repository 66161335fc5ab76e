import Domain
import Foundation
import PostgresDriver

/// A filtered page's rows, and its SQL: in a keyset order, by date range or of closed posts
/// (`orderedPage`), or in the default order's two sections (`sectionedPage`).
extension PostgresFeedRepository {
    /// The page's rows (one more than the limit when another follows): the total, the
    /// post's columns and its sort key. The page's ids are cut first, then joined for their
    /// columns: a projection runs for every row OFFSET skips too (joins, is_liked; item
    /// 1,000 of a search: 270 ms, half of it for rows dropped).
    func page(_ query: FeedQuery, day: KoreaDay, viewer: UserID?, offset: Int, total: SQL, sql: FeedSQL, read: SearchRead?,
              _ connection: PostgresConnection) throws -> [PostgresRow] {
        var sql = sql
        let statement: SQL
        if query.sort == .default && query.dateRange == nil && query.status != .closed {
            statement = Self.sectionedPage(query, day: day, viewer: viewer, offset: offset, total: total, read: read, sql: sql)
        } else {
            statement = try Self.orderedPage(query, viewer: viewer, offset: offset, total: total, read: read, sql: &sql)
        }
        switch read {
        case nil:
            return Array(try connection.query(statement))
        case .walk(let rows):
            // A search's best plan depends on the term: planned per request. An empty
            // answer (the walk gave up) sends the page through the index.
            return try Self.walking(connection, rows: rows) { Array(try $0.queryPlannedForValues(statement)) } ?? []
        case .matched, .openFirst:
            // Never a scan of every post for the matches: the planner may misjudge a term
            // as most of them.
            return try connection.transaction { connection in
                try connection.query("SELECT set_config('enable_seqscan', 'off', true)")
                return Array(try connection.queryPlannedForValues(statement))
            }
        }
    }

    /// A page in a keyset order, by date range or of closed posts (see ``page``).
    static func orderedPage(_ query: FeedQuery, viewer: UserID?, offset: Int, total: SQL, read: SearchRead?, sql: inout FeedSQL) throws -> SQL {
        let (order, keyColumn, walkedColumn) = try order(query, sql: &sql)
        let table = orderTable(query)
        var with: SQL = ""
        let source: SQL
        switch read {
        case nil:
            source = "\(unescaped: table) p \(sql.all.whereClause)"
        case .walk(let rows):
            source = sql.walk(order: order, column: walkedColumn, rows: rows, from: table)
        case .matched(let limit):
            with = "WITH \(matchedClause(sql, limit: limit)) "
            source = "matched p \(sql.pageConditions.whereClause)"
        case .openFirst:
            // Only the default order's sections read open matches first (`everyMatch`).
            with = "WITH \(matchedClause(sql, limit: nil)) "
            source = "matched p \(sql.pageConditions.whereClause)"
        }
        // LIMIT is written into the text (one statement per limit, at most 50) so the
        // planner knows the page is small; OFFSET only when there is one.
        let skip: SQL = offset > 0 ? " OFFSET \(offset)" : ""
        return """
            \(with)SELECT \(total), \(PostRows.columns(viewer: viewer)), \(unescaped: keyColumn)
            FROM (SELECT p.id FROM \(source) ORDER BY \(unescaped: order)\(skip) LIMIT \(raw: query.limit + 1)) page
            JOIN posts p ON p.id = page.id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
            ORDER BY \(unescaped: order)
            """
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
    static func sectionedPage(_ query: FeedQuery, day: KoreaDay, viewer: UserID?, offset: Int, total: SQL, read: SearchRead?,
                              sql: FeedSQL) -> SQL {
        let dayText = day.description
        let reach = offset + query.limit + 1
        // Posts closing within a day are few: read them (through posts_end), not the order.
        let closingSoon = read == nil && query.status == .closingSoon && query.influencer == nil
        // Posts read directly carry the category condition already.
        let category: SQL = read?.readsMatches == true || closingSoon ? ""
            : query.category.map { " AND f.category_id = \($0.rawValue)" } ?? ""
        let dayStart = day.start
        let opensSince: Bool = query.status == nil || read?.readsMatches == true
        // Each section's rows: from the order walked, from the matches, or from posts.
        var matched: SQL = "", ranks: SQL = "", closed: SQL = ""
        switch read {
        case nil where closingSoon:
            // A narrow range of posts_end (walking the day's order for them: 110-170 ms at
            // item 1,000), each post's rank computed (see the matches' below).
            ranks = "(SELECT p.id AS post_id, feed_rank(p.id, \(dayText)::date) AS rank FROM posts p \(sql.all.whereClause)) f"
        case nil where query.status != nil && query.influencer == nil:
            // Upcoming or ongoing, most of the open posts: the day's order walked, each
            // post's window looked up by id as the walk goes (a scalar subquery, not pulled
            // up into a join). Joined, PostgreSQL hashed all 143 k of the day's ranks with
            // the 69 k upcoming posts for `status=upcoming&page=20&limit=50` (90-160 ms);
            // walked, ~2 k lookups (22 ms).
            ranks = """
                feed_ranks f WHERE f.day = \(dayText)::date\(category)
                AND (SELECT true FROM posts p WHERE p.id = f.post_id\(sql.all.andClause))
                """
        case nil:
            ranks = "feed_ranks f JOIN posts p ON p.id = f.post_id WHERE f.day = \(dayText)::date\(category)"
                + (opensSince ? " AND p.group_buying_end >= \(dayStart)" : "") + sql.all.andClause
            closed = "posts p WHERE p.group_buying_end < \(dayStart)\(sql.all.andClause)"
        case .walk(let rows):
            ranks = """
                (SELECT f.* FROM feed_ranks f WHERE f.day = \(dayText)::date\(category) ORDER BY f.rank, f.post_id LIMIT \(raw: rows)) f
                JOIN posts p ON p.id = f.post_id WHERE true\(sql.walked.andClause)
                """
            closed = """
                (SELECT p.* FROM posts p WHERE p.group_buying_end < \(dayStart)\(sql.unsearched.andClause)
                 ORDER BY p.group_buying_end DESC, p.id DESC LIMIT \(raw: rows)) p \(sql.searchConditions.whereClause)
                """
        case .matched(let limit):
            matched = "\(matchedClause(sql, limit: limit)), "
            // The open matches' ranks, computed: the day's feed_ranks hold exactly the posts
            // open at its midnight, ranked feed_rank(id, day) (migration 0004's triggers keep
            // it so through every write, and the day is prepared before any page). Joined,
            // PostgreSQL hashed all of the day's 143 k ranks for 2 k open matches (72 ms);
            // looked up one by one, 4.4 k open matches of `search=크림` took 18 ms.
            ranks = """
                (SELECT m.id AS post_id, feed_rank(m.id, \(dayText)::date) AS rank
                 FROM matched m WHERE m.group_buying_end >= \(dayStart)) f
                """
            closed = "matched p WHERE p.group_buying_end < \(dayStart)"
        case .openFirst:
            // The open matches as above; the ended ones read only when the page reaches
            // past the open ones (a LIMIT of 0 reads nothing).
            matched = "\(matchedClause(sql, limit: nil, openAt: dayStart)), "
            ranks = "(SELECT m.id AS post_id, feed_rank(m.id, \(dayText)::date) AS rank FROM matched m) f"
            closed = "posts p WHERE p.group_buying_end < \(dayStart)\(sql.matchedConditions.andClause)"
        }
        var closedSection: SQL = ""
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
        // The page's ids are cut first, then joined for their columns (see `page`).
        let skip: SQL = offset > 0 ? " OFFSET \(offset)" : ""
        return """
            WITH \(matched)open AS MATERIALIZED (
                SELECT f.post_id, f.rank FROM \(ranks)
                ORDER BY f.rank, f.post_id LIMIT \(reach))
            SELECT \(total), \(PostRows.columns(viewer: viewer)), 0::float8
            FROM (SELECT r.post_id, r.section, r.ordinal
                  FROM ((SELECT post_id, 0 AS section, row_number() OVER (ORDER BY rank, post_id) AS ordinal FROM open)
                        \(closedSection)) r
                  ORDER BY r.section, r.ordinal\(skip) LIMIT \(raw: query.limit + 1)) r
            JOIN posts p ON p.id = r.post_id JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
            ORDER BY r.section, r.ordinal
            """
    }

    /// The table `query`'s order is read from, aliased `p`: posts, or for the popular order
    /// `post_popularity` (migration 0039: posts no longer index `likes_count`, so a like's
    /// update of it stays HOT), which carries every column the conditions read but the
    /// search's and the influencer's. One influencer's posts are read through
    /// `posts_influencer` and sorted, as before.
    static func orderTable(_ query: FeedQuery) -> String {
        query.sort == .popular && query.influencer == nil ? "post_popularity" : "posts"
    }

    /// The ORDER BY for `query`, the sort-key column (as seconds or a count, for cursors)
    /// and the column the order walks besides `id`; adds the cursor condition.
    static func order(_ query: FeedQuery, sql: inout FeedSQL) throws -> (order: String, key: String, walked: String) {
        switch query.sort {
        case .default where query.dateRange != nil:
            return ("p.group_buying_start DESC, p.id DESC", "0::float8", "p.group_buying_start")
        case .default:
            // status=closed (the other default orders are sectionedPage): most recently
            // closed first, straight from the posts_end index. The sectioned order would
            // compute each post's section first (858 k closed posts on the bench dataset).
            return ("p.group_buying_end DESC, p.id DESC", "0::float8", "p.group_buying_end")
        case .latest:
            if let cursor = query.cursor {
                sql.after("(p.posted_at, p.id) < (to_timestamp(\(cursor.key)), \(cursor.id))")
            }
            return ("p.posted_at DESC, p.id DESC", "extract(epoch FROM p.posted_at)::float8", "p.posted_at")
        case .popular:
            if let cursor = query.cursor {
                sql.after("(p.likes_count, p.id) < (\(Int(cursor.key)), \(cursor.id))")
            }
            return ("p.likes_count DESC, p.id DESC", "p.likes_count::float8", "p.likes_count")
        case .endingSoon:
            if let cursor = query.cursor {
                sql.after("(p.group_buying_end, p.id) > (to_timestamp(\(cursor.key)), \(cursor.id))")
            }
            return ("p.group_buying_end ASC, p.id ASC", "extract(epoch FROM p.group_buying_end)::float8", "p.group_buying_end")
        }
    }
}
