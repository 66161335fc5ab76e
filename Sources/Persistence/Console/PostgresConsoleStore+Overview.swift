import Domain
import Foundation
import PostgresDriver
import Synchronization

/// The overview's numbers, from what the feed already keeps where it can.
extension PostgresConsoleStore {
    /// Per category, from the feed's counters (migration 0009's day counts and a day's range
    /// of posts): upcoming, open now and closing within 24 hours, exactly as the API's
    /// `status` filters count them. Counting the posts themselves took 341 ms on 1 M posts.
    /// The week's hourly sign-ups, likes and ingested posts are counted once a minute at
    /// most: a week of likes on the bench's data is 5 M rows (179 ms to count).
    public func overview(now: Date) async throws -> ConsoleOverview {
        let day = KoreaDay(containing: now)
        let weekStart = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600 - 167 * 3600)
        return try await pool.withConnection { [series] connection in
            var categories: [CategoryActivity] = []
            for row in try connection.query("SELECT id, name FROM categories ORDER BY sort_order") {
                let id = CategoryID(rawValue: try row.decode(0))
                func total(_ status: PostStatus) -> SQL { PostgresFeedRepository.openStatusTotal(status, id, day: day, now: now) }
                let counts = try connection.query("SELECT \(total(.upcoming)), \(total(.ongoing)), \(total(.closingSoon))").single()
                let (upcoming, ongoing, closing): (Int, Int, Int) = (try counts.decode(0), try counts.decode(1), try counts.decode(2))
                categories.append(CategoryActivity(category: id, name: try row.decode(1), openNow: ongoing + closing, upcoming: upcoming,
                                                   closingSoon: closing))
            }
            let hourly = try series.value(for: weekStart) { try Self.hourlySeries(since: weekStart, connection) }
            let counts = try connection.query("""
                SELECT (SELECT count(*)::int FROM influencer_requests WHERE status = 'processing'),
                       (SELECT count(*)::int FROM hidden_posts),
                       (SELECT COALESCE(sum(bytes), 0)::bigint FROM uploads),
                       (SELECT count(*)::int FROM users WHERE role = 'admin')
                """).single()
            let keys = try connection.query("SELECT \(unescaped: PostgresServiceKeyRepository.columns) FROM service_api_keys WHERE revoked_at IS NULL ORDER BY id")
                .map(PostgresServiceKeyRepository.decode)
            return ConsoleOverview(categories: categories, series: hourly, pendingRequests: try counts.decode(0), hiddenPosts: try counts.decode(1),
                                   keys: keys, storedMediaBytes: try counts.decode(2), admins: try counts.decode(3))
        }
    }

    /// Sign-ups, likes and ingested posts per hour from `weekStart`, 168 hours.
    private static func hourlySeries(since weekStart: Date, _ connection: PostgresConnection) throws -> [HourlySeries] {
        func hourly(_ name: String, _ source: SQL) throws -> HourlySeries {
            var counts = Array(repeating: 0, count: 168)
            for row in try connection.query("""
                SELECT floor(extract(epoch FROM (t - \(weekStart))) / 3600)::int, count(*)::int FROM (\(source)) s(t)
                WHERE t >= \(weekStart) GROUP BY 1
                """) {
                let hour: Int = try row.decode(0)
                if counts.indices.contains(hour) { counts[hour] = try row.decode(1) }
            }
            return HourlySeries(name: name, start: weekStart, counts: counts)
        }
        return [
            try hourly("Sign-ups", "SELECT created_at FROM users WHERE NOT is_anonymous AND created_at >= \(weekStart)"),
            try hourly("Likes", "SELECT created_at FROM likes WHERE created_at >= \(weekStart)"),
            try hourly("Ingested posts", "SELECT created_at FROM posts WHERE source = 'ingest' AND created_at >= \(weekStart)"),
        ]
    }
}

/// The overview's hourly series for one week-start, for a minute.
final class SeriesCache: Sendable {
    private let entry = Mutex<(weekStart: Date, at: ContinuousClock.Instant, series: [HourlySeries])?>(nil)

    func value(for weekStart: Date, _ compute: () throws -> [HourlySeries]) throws -> [HourlySeries] {
        let now = ContinuousClock.now
        if let cached = entry.withLock({ $0 }), cached.weekStart == weekStart, now - cached.at < .seconds(60) { return cached.series }
        let series = try compute()
        entry.withLock { $0 = (weekStart, now, series) }
        return series
    }
}
