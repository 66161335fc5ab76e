import Foundation
import PostgresDriver

/// A filtered list's conditions, each an ``SQL`` fragment with its values bound in place.
/// User input only ever travels as values. A search's conditions are kept apart, so a
/// query can walk an order under the others and filter what it reads by the search.
struct FeedSQL {
    /// Every condition but the search's.
    private(set) var conditions = SQLConditions()
    /// The search's conditions (see ``search(_:)``).
    private(set) var searchConditions = SQLConditions()
    /// Conditions on where the page's order is read, not on what its total counts: where
    /// a keyset page starts (``after(_:)``), and bounds the other conditions imply
    /// (``imply(_:)``).
    private(set) var pageConditions = SQLConditions()

    /// Conditions every match meets already, restated on `group_buying_end` so PostgreSQL
    /// can prove the matches are all in the live posts' gram index (``LiveSearchIndex``):
    /// `status=upcoming` (its window starts later, so it ends later too). Only where a
    /// search's matches are read through the index (``matchedConditions``).
    private(set) var liveConditions = SQLConditions()

    /// Every condition.
    var all: SQLConditions { SQLConditions(all: conditions.all + searchConditions.all + pageConditions.all) }

    /// Every condition but the page's: what a total counts.
    var matching: SQLConditions { SQLConditions(all: conditions.all + searchConditions.all) }

    /// What a search's matches are read through the index under: ``matching`` and
    /// ``liveConditions``.
    var matchedConditions: SQLConditions { SQLConditions(all: matching.all + liveConditions.all) }

    /// The conditions an order is walked under: all but the search's.
    var unsearched: SQLConditions { SQLConditions(all: conditions.all + pageConditions.all) }

    /// Every condition, the search's as one opaque filter on rows already read: joined to
    /// a walked order, the search conditions made PostgreSQL read all of a term's matches
    /// through the gram index and hash them against the walk (`search=minji`: 67 k posts,
    /// 344 ms, for a page that needed 1,241 rows of the order).
    var walked: SQLConditions {
        searchConditions.isEmpty ? all
            : SQLConditions(all: unsearched.all + ["CASE WHEN \(searchConditions.all.joined(separator: " AND ")) THEN true END"])
    }

    /// The search's conditions on a walked row that carries only its id as `walked_id`
    /// (and its sort key), looked up by that id: the walk can then be read from an index
    /// alone. A scalar subquery, evaluated row by row as the walk goes: PostgreSQL would
    /// turn an `EXISTS` into a join over every match (see ``walked``).
    var searchedByID: SQL {
        "(SELECT true FROM posts p WHERE p.id = walked_id\(searchConditions.andClause))"
    }

    /// A search walking posts: the first `rows` posts of `order` (storage order when `nil`)
    /// in `table` that meet the other conditions, then filtered by the search, as a source
    /// aliased `p` with `id` and `column`. With other conditions, or from another table than
    /// posts (`post_popularity`, migration 0039), they are checked inside the order's index
    /// (migration 0014) and only the posts that pass are read, by id, for the search;
    /// without, each walked row is read anyway, and the search filters it in place.
    func walk(order: String?, column: String?, rows: Int, from table: String = "posts") -> SQL {
        let ordered = order.map { " ORDER BY \($0)" } ?? ""
        guard !conditions.isEmpty || table != "posts" else {
            return "(SELECT p.* FROM posts p \(unsearched.whereClause)\(unescaped: ordered) LIMIT \(raw: rows)) p \(searchConditions.whereClause)"
        }
        let columns = ["p.id AS walked_id", "p.id"] + (column.map { [$0] } ?? [])
        return """
            (SELECT \(unescaped: columns.joined(separator: ", ")) FROM \(unescaped: table) p \(unsearched.whereClause)\(unescaped: ordered) LIMIT \(raw: rows)) p
            WHERE \(searchedByID)
            """
    }

    mutating func `where`(_ condition: SQL) {
        conditions.all.append(condition)
    }

    /// A condition every post matching the others meets, for the live posts' gram index
    /// (see ``liveConditions``).
    mutating func implyLive(_ condition: SQL) {
        liveConditions.all.append(condition)
    }

    /// A keyset cursor's condition: part of the page, not of what the total counts.
    mutating func after(_ condition: SQL) {
        pageConditions.all.append(condition)
    }

    /// A condition every post matching the others meets already, stated so an index scan
    /// can start and stop by it. Not counted: the planner would take it as a further filter
    /// and underestimate the matches.
    mutating func imply(_ condition: SQL) {
        pageConditions.all.append(condition)
    }

    /// Posts whose product name, influencer username or full name contains `term`,
    /// case-insensitively (migration 0013's gram index). Terms longer than one gram are
    /// rechecked with LIKE; for one- and two-character terms the recheck folds to `true`
    /// when the statement is planned for its values. `probe`, when given, is what the gram
    /// index is asked for instead of every gram of the term: some of its grams (all of a
    /// one-gram term's), which every match holds (``SearchStatistics/probe(_:frequency:posts:)``).
    mutating func search(_ term: String, probe: [Int32]? = nil) {
        let pattern = "%" + Self.escapeLike(term) + "%"
        let like: SQL = "LIKE lower(\(pattern)) ESCAPE '\\'"
        if let probe {
            searchConditions.all.append("p.search_grams @> \(PostgresTextArray(probe.map(String.init)))::integer[]")
        } else {
            searchConditions.all.append("p.search_grams @> search_term_grams(\(term))")
        }
        searchConditions.all.append("""
            (search_term_exact(\(term)) OR lower(p.product_name) \(like)
             OR p.influencer_id IN (SELECT si.id FROM influencers si WHERE si.search_grams @> search_term_grams(\(term))
                                    AND (lower(si.username) \(like) OR lower(si.full_name) \(like))))
            """)
    }

    /// Makes `%`, `_` and `\` match themselves in a LIKE pattern.
    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}

/// Conditions joined by AND.
struct SQLConditions {
    fileprivate(set) var all: [SQL] = []

    var isEmpty: Bool { all.isEmpty }

    /// `WHERE …`, or empty.
    var whereClause: SQL {
        all.isEmpty ? "" : "WHERE " + all.joined(separator: " AND ")
    }

    /// ` AND …` to follow other conditions, or empty.
    var andClause: SQL {
        all.isEmpty ? "" : " AND " + all.joined(separator: " AND ")
    }
}
