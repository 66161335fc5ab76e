import Domain
import Foundation
import PostgresDriver

/// ``InfluencerRequestRepository`` over `influencer_requests` (migration 0021).
public struct PostgresInfluencerRequestRepository: InfluencerRequestRepository {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    private static let columns = "r.id, r.username, r.status, r.reason, r.influencer_id, r.attempts, r.created_at"

    private static func decode(_ row: PostgresRow) throws -> InfluencerRequest {
        InfluencerRequest(
            id: try row.decode(0), username: try row.decode(1),
            status: InfluencerRequest.Status(rawValue: try row.decode(2)) ?? .processing,
            reason: (try row.decode(3, as: String?.self)).flatMap(InfluencerRequest.Failure.init(rawValue:)),
            influencerID: (try row.decode(4, as: Int?.self)).map(InfluencerID.init(rawValue:)), attempts: try row.decode(5),
            createdAt: try row.decode(6))
    }

    /// The requester's row is locked before the open requests are counted, in a statement
    /// of its own (see PostgresFollowRepository.follow), so concurrent submissions of one
    /// account are counted one at a time. A request that failed `retryAfter` seconds ago
    /// or more (and was not rejected by an admin) is taken over by this requester.
    public func submit(username: String, by user: UserID, openLimit: Int, retryAfter: TimeInterval) async throws -> (request: InfluencerRequest, created: Bool) {
        try await pool.transaction { connection in
            guard try connection.query("SELECT 1 FROM influencers WHERE username = \(username)").first == nil else {
                throw DomainError.conflict("influencer")
            }
            let stale = try connection.query("""
                SELECT r.id FROM influencer_requests r
                WHERE r.username = \(username) AND r.status = 'failed' AND r.reason NOT IN ('rejected', 'invalid_username') AND r.updated_at <= now() - \(retryAfter) * interval '1 second'
                """).first
            let existing: SQL = "SELECT \(unescaped: Self.columns) FROM influencer_requests r WHERE r.username = \(username)"
            if stale == nil, let row = try connection.query(existing).first { return (try Self.decode(row), false) }
            guard try connection.query("SELECT 1 FROM users WHERE id = \(user.rawValue) FOR UPDATE").first != nil else {
                throw DomainError.notFound("user")
            }
            let open: Int = try connection.query(
                "SELECT count(*)::int FROM influencer_requests WHERE requested_by = \(user.rawValue) AND status = 'processing'").single().decode(0)
            guard open < openLimit else {
                throw DomainError.limitReached("influencer_request", message: "At most \(openLimit) requests may be processing at once; wait for one to finish.")
            }
            if let stale {
                // Still failed and stale under the row lock: another submission may have reopened it meanwhile.
                if let row = try connection.query("""
                    UPDATE influencer_requests r SET status = 'processing', reason = NULL, attempts = 0, next_attempt_at = now(),
                           leased_until = NULL, requested_by = \(user.rawValue), updated_at = now()
                    WHERE r.id = \(try stale.decode(0, as: Int.self)) AND r.status = 'failed' AND r.reason <> 'rejected' AND r.updated_at <= now() - \(retryAfter) * interval '1 second'
                    RETURNING \(unescaped: Self.columns)
                    """).first {
                    return (try Self.decode(row), true)
                }
                return (try Self.decode(try connection.query(existing).single()), false)
            }
            // Another request for the name may have committed since the look above.
            if let row = try connection.query("""
                INSERT INTO influencer_requests (username, requested_by) VALUES (\(username), \(user.rawValue)) ON CONFLICT (username) DO NOTHING
                RETURNING id, username, status, reason, influencer_id, attempts, created_at
                """).first {
                return (try Self.decode(row), true)
            }
            return (try Self.decode(try connection.query(existing).single()), false)
        }
    }

    public func requests(of user: UserID, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        try await page(where: "r.requested_by = \(user.rawValue)", offset: offset, limit: limit)
    }

    public func requests(status: InfluencerRequest.Status?, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        try await page(where: "(\(status?.rawValue)::text IS NULL OR r.status = \(status?.rawValue))", offset: offset, limit: limit)
    }

    private func page(where condition: SQL, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        try await pool.withConnection { connection in
            let total: Int = try connection.query("SELECT count(*)::int FROM influencer_requests r WHERE \(condition)").single().decode(0)
            let items = try connection.query("""
                SELECT \(unescaped: Self.columns) FROM influencer_requests r WHERE \(condition) ORDER BY r.created_at DESC, r.id DESC OFFSET \(offset) LIMIT \(limit)
                """).map(Self.decode)
            return Page(items: items, total: total)
        }
    }

    public func request(idOrUsername: String) async throws -> InfluencerRequest? {
        try await pool.withConnection { connection in
            if let id = Int(idOrUsername) {
                return try connection.query("SELECT \(unescaped: Self.columns) FROM influencer_requests r WHERE r.id = \(id)").first.map(Self.decode)
            }
            return try connection.query("SELECT \(unescaped: Self.columns) FROM influencer_requests r WHERE r.username = lower(\(idOrUsername))").first.map(Self.decode)
        }
    }

    public func claimDue(limit: Int, lease: TimeInterval, now: Date) async throws -> [InfluencerRequest] {
        try await pool.statement { connection in
            try connection.query("""
                UPDATE influencer_requests r SET leased_until = \(now.addingTimeInterval(lease)), attempts = r.attempts + 1, updated_at = \(now)
                WHERE r.id IN (SELECT id FROM influencer_requests
                               WHERE status = 'processing' AND next_attempt_at <= \(now) AND (leased_until IS NULL OR leased_until < \(now))
                               ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: Self.columns)
                """).map(Self.decode)
        }
    }

    public func approve(id: Int, profile: InstagramProfile) async throws -> InfluencerRequest? {
        try await pool.transaction { connection in try Self.approve(id: id, profile: profile, connection) }
    }

    public func fail(id: Int, reason: InfluencerRequest.Failure) async throws -> InfluencerRequest? {
        try await pool.statement { connection in try Self.fail(id: id, reason: reason, connection) }
    }

    public func reopen(id: Int) async throws -> InfluencerRequest? {
        try await pool.statement { connection in try Self.reopen(id: id, connection) }
    }

    // The changes on a connection: their own transaction above, or the console's audited one.

    static func approve(id: Int, profile: InstagramProfile, _ connection: PostgresConnection) throws -> InfluencerRequest? {
        guard let row = try connection.query("SELECT username FROM influencer_requests WHERE id = \(id) AND status <> 'approved' FOR UPDATE").first else { return nil }
        var profile = profile
        profile.username = try row.decode(0)
        // Written as every door writes influencers (a renamed account keeps its influencer);
        // when the account and the name are two influencers' already, the name's is kept.
        let written = try InfluencerUpsert.write(profile, category: nil, connection).id
        guard let influencer = try written ?? connection.query("SELECT id FROM influencers WHERE username = \(profile.username)").first?.decode(0, as: Int.self)
        else { throw DomainError.conflict("influencer") }
        return try connection.query("""
            UPDATE influencer_requests r SET status = 'approved', reason = NULL, influencer_id = \(influencer), leased_until = NULL, updated_at = now()
            WHERE r.id = \(id) RETURNING \(unescaped: Self.columns)
            """).first.map(Self.decode)
    }

    static func fail(id: Int, reason: InfluencerRequest.Failure, _ connection: PostgresConnection) throws -> InfluencerRequest? {
        try connection.query("""
            UPDATE influencer_requests r SET status = 'failed', reason = \(reason.rawValue), leased_until = NULL, updated_at = now()
            WHERE r.id = \(id) AND r.status = 'processing' RETURNING \(unescaped: Self.columns)
            """).first.map(Self.decode)
    }

    static func reopen(id: Int, _ connection: PostgresConnection) throws -> InfluencerRequest? {
        try connection.query("""
            UPDATE influencer_requests r SET status = 'processing', reason = NULL, attempts = 0, next_attempt_at = now(),
                   leased_until = NULL, updated_at = now()
            WHERE r.id = \(id) AND r.status <> 'approved' RETURNING \(unescaped: Self.columns)
            """).first.map(Self.decode)
    }

    public func recordInvalid(username: String, by user: UserID) async throws -> InfluencerRequest {
        try await pool.statement { connection in
            if let row = try connection.query("""
                INSERT INTO influencer_requests (username, requested_by, status, reason) VALUES (\(username), \(user.rawValue), 'failed', 'invalid_username')
                ON CONFLICT (username) DO NOTHING RETURNING \(unescaped: Self.columns.replacingOccurrences(of: "r.", with: ""))
                """).first {
                return try Self.decode(row)
            }
            return try Self.decode(try connection.query("SELECT \(unescaped: Self.columns) FROM influencer_requests r WHERE r.username = \(username)").single())
        }
    }

    public func retry(id: Int, at: Date) async throws {
        try await pool.statement { connection in
            try connection.execute("""
                UPDATE influencer_requests SET next_attempt_at = \(at), leased_until = NULL, updated_at = now() WHERE id = \(id) AND status = 'processing'
                """)
        }
    }
}
