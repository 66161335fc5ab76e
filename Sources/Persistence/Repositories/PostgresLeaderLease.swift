import Domain
import Foundation
import PostgresDriver

/// ``LeaderLease`` as a row of `job_leader` (migration 0025), timed by the database's
/// clock: one upsert takes, renews or refuses, so two instances racing for an expired lease
/// cannot both win (the row lock orders them).
public struct PostgresLeaderLease: LeaderLease {
    private let pool: PostgresPool
    private let name: String

    public init(pool: PostgresPool, name: String = "jobs") {
        self.pool = pool
        self.name = name
    }

    public func acquire(holder: UUID, duration: TimeInterval) async throws -> Bool {
        try await pool.statement { connection in
            try connection.execute("""
                INSERT INTO job_leader AS l (name, holder, since, expires_at)
                VALUES (\(name), \(holder), clock_timestamp(), clock_timestamp() + \(duration) * interval '1 second')
                ON CONFLICT (name) DO UPDATE
                  SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
                      since = CASE WHEN l.holder = EXCLUDED.holder THEN l.since ELSE EXCLUDED.since END
                  WHERE l.holder = EXCLUDED.holder OR l.expires_at < clock_timestamp()
                """) == 1
        }
    }

    public func release(holder: UUID) async throws {
        try await pool.statement { connection in
            try connection.execute("DELETE FROM job_leader WHERE name = \(name) AND holder = \(holder)")
        }
    }
}
