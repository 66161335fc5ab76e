import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

/// Auth bookkeeping is pruned once nothing it concerns can still be valid, by one
/// instance at a time.
@Suite struct SessionHousekeepingTests {
    private func count(_ pool: PostgresPool, _ table: String) async throws -> Int {
        try await pool.withConnection { try $0.query("SELECT count(*)::int FROM \(unescaped: table)").first!.decode(0) }
    }

    private func seed(_ pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            try connection.execute(script: """
                INSERT INTO users (id, is_anonymous) VALUES ('00000000-0000-0000-0000-000000000001', false);
                INSERT INTO sessions (id, user_id, revoked_at, revoked_reason) VALUES
                    ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-000000000001', now() - interval '3 hours', 'logout'),
                    ('00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-000000000001', now() - interval '1 minute', 'logout');
                INSERT INTO sessions (id, user_id) VALUES ('00000000-0000-0000-0000-0000000000a3', '00000000-0000-0000-0000-000000000001');
                INSERT INTO refresh_tokens (session_id, token_hash, used_at) VALUES
                    ('00000000-0000-0000-0000-0000000000a1', decode(repeat('01', 32), 'hex'), NULL),
                    ('00000000-0000-0000-0000-0000000000a2', decode(repeat('02', 32), 'hex'), NULL),
                    ('00000000-0000-0000-0000-0000000000a3', decode(repeat('03', 32), 'hex'), now() - interval '31 days'),
                    ('00000000-0000-0000-0000-0000000000a3', decode(repeat('04', 32), 'hex'), now() - interval '1 day'),
                    ('00000000-0000-0000-0000-0000000000a3', decode(repeat('05', 32), 'hex'), NULL);
                DELETE FROM revoked_sessions;
                INSERT INTO revoked_sessions (session_id, revoked_at) VALUES
                    (gen_random_uuid(), now() - interval '3 hours'), (gen_random_uuid(), now() - interval '1 minute');
                INSERT INTO role_changes (user_id, role, changed_at) VALUES
                    ('00000000-0000-0000-0000-000000000001', 'admin', now() - interval '3 hours'),
                    ('00000000-0000-0000-0000-000000000001', 'user', now() - interval '1 minute');
                """)
        }
    }

    @Test func onlyRowsNoValidTokenCanConcernAreDeleted() async throws {
        let database = try await TestDatabase.migrated()
        try await seed(database.pool)
        let now = Date()
        let report = try await PostgresSessionHousekeeping(pool: database.pool)
            .prune(horizon: now.addingTimeInterval(-3600 - 120), spentTokenRetention: 30 * 86_400, now: now)
        #expect(report == PostgresSessionHousekeeping.Report(revocations: 1, roleChanges: 1, refreshTokens: 2))
        #expect(try await count(database.pool, "revoked_sessions") == 1)
        #expect(try await count(database.pool, "role_changes") == 1)
        // Left: the recently revoked session's token, the live session's fresh and recently spent ones.
        #expect(try await count(database.pool, "refresh_tokens") == 3)
        await database.drop()
    }

    @Test func aSecondInstanceSkipsItsPassWhileOneRuns() async throws {
        let database = try await TestDatabase.migrated()
        try await seed(database.pool)
        let other = PostgresPool(.init(url: database.url, size: 1))
        try await other.withConnection { connection in
            try connection.execute("BEGIN")
            _ = try connection.query("SELECT pg_advisory_xact_lock(\(raw: 0x6D30_392D_6175_7468))")
        }
        let now = Date()
        let skipped = try await PostgresSessionHousekeeping(pool: database.pool)
            .prune(horizon: now.addingTimeInterval(-3720), spentTokenRetention: 30 * 86_400, now: now)
        #expect(skipped == nil)
        #expect(try await count(database.pool, "revoked_sessions") == 2)
        // The lock ends with the holder's transaction (or its death): the next pass runs.
        try await other.withConnection { try $0.execute("ROLLBACK") }
        #expect(try await PostgresSessionHousekeeping(pool: database.pool)
            .prune(horizon: now.addingTimeInterval(-3720), spentTokenRetention: 30 * 86_400, now: now) != nil)
        await other.close()
        await database.drop()
    }
}
