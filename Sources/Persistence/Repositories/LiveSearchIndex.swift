import Foundation
import PostgresDriver
import Synchronization
import Workers

/// The gram index of live posts: `posts_search_grams_category`'s columns, over only the
/// posts ending on or after a cutoff a week or two back (`WHERE group_buying_end >= cutoff`).
///
/// Why: most searches ask for posts that have not ended (`sort=ending_soon`, the statuses
/// upcoming, ongoing and closing soon, a date range from now on), and those are a set the
/// size of a week or two of offers, while the full index grows with every post ever made.
/// Reading a term's live matches from it leaves out the ended ones before any heap visit:
/// `search=캐시미어&sort=ending_soon&page=50` on 10 M posts read 154 k posts holding the
/// term to keep 22 k (874 ms); through this index it reads 27 k (50 ms). PostgreSQL picks it
/// by itself: a search's `group_buying_end >= now` (bound as a value) implies the index's
/// predicate whenever the cutoff is earlier.
///
/// A predicate must be a constant, so the cutoff is rolled: when the newest index's cutoff
/// is over 14 days old, a new one is built with the cutoff 7 days back (`CREATE INDEX
/// CONCURRENTLY`: writes go on meanwhile) and then the older ones are dropped. The cutoff
/// is in the name (`posts_search_live_20261128`), so nothing else records it.
public struct LiveSearchIndex: Sendable {
    /// What a pass did.
    public enum Outcome: Equatable, Sendable {
        /// The newest index was recent enough; indexes left by failed or superseded builds
        /// were dropped.
        case current(name: String, dropped: [String])
        /// A new index was built (or found built by another instance), older ones dropped.
        case built(name: String, dropped: [String])
        /// Another session is building the index this pass wanted: nothing done.
        case buildingElsewhere(name: String)
        /// This role may not build or drop indexes of posts (it does not own the table: a
        /// deployment whose server role only reads and writes rows). `market09 migrate`,
        /// run as the owner, rolls the index there.
        case notPermitted
    }

    static let prefix = "posts_search_live_"
    /// A new index reaches this far back...
    static let reach: TimeInterval = 7 * 86_400
    /// ...and is replaced when its cutoff is older than this.
    static let maximumAge: TimeInterval = 14 * 86_400

    private let url: String
    private let mode: PostgresConnection.StatementMode

    /// Builds and drops through connections of their own to `url` (without a statement
    /// timeout: a build on 10 M posts takes minutes; nor a pool's connection held that long).
    public init(url: String, mode: PostgresConnection.StatementMode = .prepared) {
        self.url = url
        self.mode = mode
    }

    /// The cutoff a new index gets at `now`: midnight UTC, `reach` before.
    static func cutoff(at now: Date) -> Date {
        let seconds = (now.timeIntervalSince1970 - reach) / 86_400
        return Date(timeIntervalSince1970: seconds.rounded(.down) * 86_400)
    }

    static func name(cutoff: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd"
        return prefix + formatter.string(from: cutoff)
    }

    /// The cutoff a name carries, or `nil` for a name not of this form.
    static func cutoff(name: String) -> Date? {
        guard name.hasPrefix(prefix) else { return nil }
        let digits = name.dropFirst(prefix.count)
        guard digits.count == 8, digits.allSatisfy(\.isASCII), let day = Int(digits) else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (day / 10_000, day / 100 % 100, day % 100)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).flatMap { name == Self.name(cutoff: $0) ? $0 : nil }
    }

    /// Builds a new index when the newest valid one is missing or too old, and drops every
    /// other index of this family (older ones, and those a failed build left invalid). Safe
    /// on several instances at once: a build another session runs is left to finish.
    /// A cancelled task cancels the statement running (a build then leaves an invalid
    /// index, which the next pass drops and builds again): stopping the server does not wait
    /// for a build.
    public func roll(now: Date) async throws -> Outcome {
        let running = Mutex<(canceller: PostgresCanceller?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await BlockingWork.run(name: "live-search-index") { [url, mode] in
                let connection = try PostgresConnection(url: url, applicationName: "market09 live search index", statementTimeout: .zero, mode: mode)
                defer { connection.close() }
                let canceller = try PostgresCanceller(connection)
                guard !running.withLock({ $0.canceller = canceller; return $0.cancelled }) else { throw CancellationError() }
                // Through PgBouncer the start-up options are not sent (as for migrations).
                try connection.execute(script: "SET statement_timeout = 0")
                return try Self.roll(now: now, connection)
            }
        } onCancel: {
            running.withLock { $0.cancelled = true; $0.canceller?.cancelStatement() }
        }
    }

    private struct Existing {
        let name: String
        let cutoff: Date
        let valid: Bool
        let building: Bool
    }

    private static func existing(_ connection: PostgresConnection) throws -> [Existing] {
        try connection.query("""
            SELECT c.relname::text, i.indisvalid,
                   EXISTS (SELECT 1 FROM pg_stat_progress_create_index b WHERE b.index_relid = i.indexrelid)
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'posts'::regclass AND starts_with(c.relname::text, \(prefix))
            """).compactMap { row in
            let name: String = try row.decode(0)
            return try cutoff(name: name).map { Existing(name: name, cutoff: $0, valid: try row.decode(1), building: try row.decode(2)) }
        }
    }

    /// The same pass on a connection of `pool` (an operator's command's, without a statement
    /// timeout): `market09 migrate` rolls the index as the tables' owner.
    public static func roll(now: Date, pool: PostgresPool) async throws -> Outcome {
        try await pool.withConnection { try roll(now: now, $0) }
    }

    static func roll(now: Date, _ connection: PostgresConnection) throws -> Outcome {
        do {
            return try rollPermitted(now: now, connection)
        } catch let error as PostgresError where error.sqlState == "42501" {
            return .notPermitted
        }
    }

    private static func rollPermitted(now: Date, _ connection: PostgresConnection) throws -> Outcome {
        let found = try existing(connection)
        if let newest = found.filter(\.valid).max(by: { $0.cutoff < $1.cutoff }), newest.cutoff >= now.addingTimeInterval(-maximumAge) {
            let dropped = try drop(found.filter { $0.name != newest.name && !$0.building }, connection)
            return .current(name: newest.name, dropped: dropped)
        }
        let cutoff = cutoff(at: now)
        let name = name(cutoff: cutoff)
        if found.contains(where: { $0.name == name && $0.building }) { return .buildingElsewhere(name: name) }
        // A failed build leaves its index invalid under the name this pass wants: dropped first.
        _ = try drop(found.filter { $0.name == name && !$0.valid }, connection)
        do {
            try connection.execute(script: """
                CREATE INDEX CONCURRENTLY IF NOT EXISTS \(unescaped: name) ON posts USING gin (search_grams, category_id)
                WHERE group_buying_end >= \(unescaped: "'" + ISO8601DateFormatter().string(from: cutoff) + "'")::timestamptz
                """)
        } catch let error as PostgresError where error.code == .uniqueViolation {
            // Another session created the same name between the look and the build.
            return .buildingElsewhere(name: name)
        }
        // IF NOT EXISTS returns at once when another instance started the same build.
        let after = try existing(connection)
        guard after.contains(where: { $0.name == name && $0.valid }) else { return .buildingElsewhere(name: name) }
        let dropped = try drop(after.filter { $0.name != name && !$0.building }, connection)
        return .built(name: name, dropped: dropped)
    }

    private static func drop(_ indexes: [Existing], _ connection: PostgresConnection) throws -> [String] {
        for index in indexes {
            try connection.execute(script: "DROP INDEX CONCURRENTLY IF EXISTS \(unescaped: index.name)")
        }
        return indexes.map(\.name)
    }
}
