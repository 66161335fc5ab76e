import Domain
import Foundation
import PostgresDriver

/// ``IdempotencyStore`` over `idempotency_keys` (migration 0017).
public struct PostgresIdempotencyStore: IdempotencyStore {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// How long a key holds.
    public static let lifetime: TimeInterval = 86_400
    /// After this long without an answer a claim is taken for abandoned (every request
    /// ends within the statement timeout and the shutdown grace, well under it).
    static let abandonedAfter: TimeInterval = 60

    public func claim(user: UserID, key: String, request: IdempotentRequest, now: Date) async throws -> IdempotencyClaim {
        // The request as bytes: method, path and body, hashed by PostgreSQL (32 bytes stored).
        let fingerprint = PostgresBytes(Array("\(request.method) \(request.path)\n".utf8) + Array(request.body))
        return try await pool.transaction { connection in
            try connection.execute("""
                DELETE FROM idempotency_keys WHERE user_id = \(user.rawValue) AND key = \(key)
                  AND (created_at < \(now.addingTimeInterval(-Self.lifetime)) OR (status IS NULL AND created_at < \(now.addingTimeInterval(-Self.abandonedAfter))))
                """)
            let claimed = try connection.execute("""
                INSERT INTO idempotency_keys (user_id, key, request_hash, created_at) VALUES (\(user.rawValue), \(key), sha256(\(fingerprint)::bytea), \(now))
                ON CONFLICT (user_id, key) DO NOTHING
                """)
            if claimed == 1 { return .claimed }
            guard let row = try connection.query("""
                SELECT request_hash = sha256(\(fingerprint)::bytea), status, response_body FROM idempotency_keys WHERE user_id = \(user.rawValue) AND key = \(key)
                """).first else { return .inProgress }
            guard try row.decode(0, as: Bool.self) else { return .mismatch }
            guard let status = try row.decode(1, as: Int?.self) else { return .inProgress }
            return .replay(StoredAnswer(status: status, body: Data((try row.decode(2, as: String?.self) ?? "").utf8)))
        }
    }

    public func record(user: UserID, key: String, answer: StoredAnswer) async throws {
        try await pool.statement { connection in
            try connection.execute("""
                UPDATE idempotency_keys SET status = \(answer.status), response_body = \(String(decoding: answer.body, as: UTF8.self))
                WHERE user_id = \(user.rawValue) AND key = \(key)
                """)
        }
    }

    public func release(user: UserID, key: String) async throws {
        try await pool.statement { connection in
            try connection.execute("DELETE FROM idempotency_keys WHERE user_id = \(user.rawValue) AND key = \(key) AND status IS NULL")
        }
    }

    /// Deletes keys past their lifetime; returns how many.
    public func prune(now: Date) async throws -> Int {
        try await pool.statement { connection in
            try connection.execute("DELETE FROM idempotency_keys WHERE created_at < \(now.addingTimeInterval(-Self.lifetime))")
        }
    }
}
