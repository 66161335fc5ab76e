import Cryptography
import Domain
import Foundation
import PostgresDriver

/// ``ServiceKeyRepository`` over `service_api_keys` (migration 0030): keys kept as the
/// SHA-256 of their text, looked up and marked used in one statement.
public struct PostgresServiceKeyRepository: ServiceKeyRepository {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let columns = "id, name, scope, created_at, last_used_at, revoked_at, calls"

    static func decode(_ row: PostgresRow) throws -> ServiceKey {
        ServiceKey(id: try row.decode(0), name: try row.decode(1), scope: ServiceScope(rawValue: try row.decode(2)) ?? .ingest,
                   createdAt: try row.decode(3), lastUsedAt: try row.decode(4), revokedAt: try row.decode(5), calls: try row.decode(6))
    }

    public func create(name: String, scope: ServiceScope, text: String) async throws -> ServiceKey {
        try await pool.statement { connection in try Self.create(name: name, scope: scope, text: text, connection) }
    }

    /// Inserts the key on `connection` (the console's audited transaction, or its own).
    static func create(name: String, scope: ServiceScope, text: String, _ connection: PostgresConnection) throws -> ServiceKey {
        do {
            return try Self.decode(try connection.query(
                "INSERT INTO service_api_keys (name, scope, key_hash) VALUES (\(name), \(scope.rawValue), \(PostgresBytes(SHA256.digest(Data(text.utf8))))) RETURNING \(unescaped: Self.columns)").single())
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw DomainError.conflict("api_key")
        }
    }

    public func use(text: String, at: Date, counting: Bool) async throws -> ServiceKey? {
        try await pool.statement { connection in
            try connection.query("""
                UPDATE service_api_keys SET last_used_at = \(at), calls = calls + \(raw: counting ? 1 : 0)
                WHERE key_hash = \(PostgresBytes(SHA256.digest(Data(text.utf8)))) AND revoked_at IS NULL RETURNING \(unescaped: Self.columns)
                """).first.map(Self.decode)
        }
    }

    public func list() async throws -> [ServiceKey] {
        try await pool.statement { connection in
            try connection.query("SELECT \(unescaped: Self.columns) FROM service_api_keys ORDER BY created_at DESC, id DESC").map(Self.decode)
        }
    }

    public func revoke(nameOrID: String, at: Date) async throws -> ServiceKey? {
        try await pool.statement { connection in try Self.revoke(nameOrID: nameOrID, at: at, connection) }
    }

    /// Revokes on `connection`; `nil` when no key has that name or id.
    static func revoke(nameOrID: String, at: Date, _ connection: PostgresConnection) throws -> ServiceKey? {
        try connection.query("""
            UPDATE service_api_keys SET revoked_at = COALESCE(revoked_at, \(at))
            WHERE id = COALESCE((SELECT id FROM service_api_keys WHERE name = \(nameOrID)), (SELECT id FROM service_api_keys WHERE id::text = \(nameOrID)))
            RETURNING \(unescaped: Self.columns)
            """).first.map(Self.decode)
    }
}
