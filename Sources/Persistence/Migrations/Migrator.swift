import Foundation
import PostgresDriver

/// Applies versioned SQL migrations.
///
/// The applied versions live in `schema_migrations` with each file's checksum. Applied
/// versions must be a prefix of the files on disk and unchanged; each pending file runs in
/// its own transaction together with its bookkeeping row; a session-level advisory lock
/// makes concurrent `migrate` runs (two instances starting at once) take turns, and the
/// second finds nothing left to do.
public struct Migrator: Sendable {
    /// Arbitrary but fixed key for `pg_advisory_lock`, shared by every market09 instance.
    static let advisoryLockKey = 0x6D61_726B_6574_3039 // "market09"

    private let pool: PostgresPool
    private let migrations: [Migration]

    /// Creates a migrator for `migrations` (as loaded by ``Migration/load(from:)``).
    public init(pool: PostgresPool, migrations: [Migration]) {
        self.pool = pool
        self.migrations = migrations
    }

    /// Validates the applied history and returns the migrations not applied yet, in order.
    public func pending() async throws -> [Migration] {
        try await withHistory { _, pending in pending }
    }

    /// Applies every pending migration and returns those it applied (empty when current).
    @discardableResult
    public func migrate() async throws -> [Migration] {
        try await withHistory { connection, pending in
            for migration in pending {
                try connection.transaction { connection in
                    try connection.execute(unsafeSQL: migration.sql)
                    try connection.query(
                        "INSERT INTO schema_migrations (version, file_name, checksum) VALUES (\(migration.version), \(migration.fileName), \(migration.checksum))")
                }
            }
            return pending
        }
    }

    /// Runs `body` with the pending migrations while holding the migration lock, so that two
    /// instances starting together apply each migration once.
    private func withHistory(_ body: @escaping @Sendable (PostgresConnection, [Migration]) throws -> [Migration]) async throws -> [Migration] {
        let migrations = migrations
        return try await pool.withConnection { connection in
            // Migrations (and waiting for another instance's) may take longer than requests.
            try connection.execute("SET statement_timeout = 0")
            defer { _ = try? connection.execute("RESET statement_timeout") }
            return try Self.withLock(connection) {
                try Self.ensureTable(connection)
                return try body(connection, Self.pending(migrations, applied: Self.applied(connection)))
            }
        }
    }

    private static func withLock<T>(_ connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        try connection.query("SELECT pg_advisory_lock(\(advisoryLockKey))")
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(advisoryLockKey))") }
        return try body()
    }

    private static func ensureTable(_ connection: PostgresConnection) throws {
        try connection.execute(script: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    integer PRIMARY KEY,
                file_name  text NOT NULL,
                checksum   text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
    }

    private static func applied(_ connection: PostgresConnection) throws -> [(version: Int, checksum: String)] {
        try connection.query("SELECT version, checksum FROM schema_migrations ORDER BY version").map { row in
            (try row.decode(0, as: Int.self), try row.decode(1, as: String.self))
        }
    }

    static func pending(_ migrations: [Migration], applied: [(version: Int, checksum: String)]) throws -> [Migration] {
        let byVersion = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for record in applied {
            guard let file = byVersion[record.version] else {
                throw MigrationError.unknownAppliedVersion(record.version)
            }
            guard file.checksum == record.checksum else {
                throw MigrationError.checksumMismatch(version: file.version, fileName: file.fileName)
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        let newest = applied.map(\.version).max() ?? 0
        let pending = migrations.filter { !appliedVersions.contains($0.version) }
        if let gap = pending.first(where: { $0.version < newest }) {
            throw MigrationError.notAPrefix(fileName: gap.fileName, newestApplied: newest)
        }
        return pending
    }
}
