import Domain
import Foundation
import PostgresDriver

/// ``RateLimitCounters`` in `rate_limit_windows` (migration 0024): one upsert per event,
/// decided inside PostgreSQL so that concurrent events on several instances cannot all
/// pass a budget with one slot left (the row lock orders them).
public struct PostgresRateLimitCounters: RateLimitCounters {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func take(_ key: String, amount: Int, limit: Int, window: TimeInterval, now: Date) async throws -> Int? {
        guard amount <= limit else { return max(1, Int(window.rounded(.up))) }
        return try await pool.statement { connection in
            // A live window without room for `amount`: the WHERE refuses the update, no row.
            let counted = try connection.execute("""
                INSERT INTO rate_limit_windows AS w (key, ends_at, count) VALUES (\(key), \(now)::timestamptz + \(window) * interval '1 second', \(amount))
                ON CONFLICT (key) DO UPDATE
                  SET ends_at = CASE WHEN w.ends_at <= \(now) THEN EXCLUDED.ends_at ELSE w.ends_at END,
                      count = CASE WHEN w.ends_at <= \(now) THEN \(amount) ELSE w.count + \(amount) END
                  WHERE w.ends_at <= \(now) OR w.count + \(amount) <= \(limit)
                """)
            if counted == 1 { return nil }
            let left = try connection.query("SELECT extract(epoch FROM ends_at - \(now)::timestamptz)::float8 FROM rate_limit_windows WHERE key = \(key)").first?.decode(0, as: Double.self)
            return max(1, Int((left ?? 1).rounded(.up)))
        }
    }

    public func giveBack(_ key: String, amount: Int, now: Date) async throws {
        try await pool.statement { connection in
            try connection.execute("UPDATE rate_limit_windows SET count = greatest(0, count - \(amount)) WHERE key = \(key) AND ends_at > \(now) AND count > 0")
        }
    }

    /// Deletes windows that ended before `now`; returns how many.
    public func prune(now: Date) async throws -> Int {
        try await pool.statement { connection in
            try connection.execute("DELETE FROM rate_limit_windows WHERE ends_at <= \(now)")
        }
    }
}
