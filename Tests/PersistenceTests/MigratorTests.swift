import Foundation
import Persistence
import PostgresDriver
import DatabaseTestSupport
import Testing

@Suite struct MigratorTests {
    @Test func aFreshDatabaseGetsEveryMigrationAndTheRerunIsANoOp() async throws {
        let database = try await TestDatabase.empty()
        let migrations = try TestDatabase.migrations()
        let migrator = Migrator(pool: database.pool, migrations: migrations)

        #expect(try await migrator.pending().map(\.version) == migrations.map(\.version))
        let applied = try await migrator.migrate()
        #expect(applied.map(\.fileName) == migrations.map(\.fileName))
        #expect(try await migrator.migrate().isEmpty)
        #expect(try await migrator.pending().isEmpty)

        let recorded = try await database.pool.withConnection { connection in
            try connection.query("SELECT version, checksum FROM schema_migrations ORDER BY version").map {
                "\(try $0.decode(0, as: Int.self)):\(try $0.decode(1, as: String.self))"
            }
        }
        #expect(recorded == migrations.map { "\($0.version):\($0.checksum)" })
        await database.drop()
    }

    @Test func anEditedAppliedFileIsRefusedByName() async throws {
        let database = try await TestDatabase.empty()
        let directory = try scratchDirectory(files: ["0001_first.sql": "CREATE TABLE a (id int);"])
        try await Migrator(pool: database.pool, migrations: Migration.load(from: directory)).migrate()

        try "CREATE TABLE a (id bigint);".write(to: directory.appendingPathComponent("0001_first.sql"), atomically: true, encoding: .utf8)
        let edited = Migrator(pool: database.pool, migrations: try Migration.load(from: directory))

        await #expect(throws: MigrationError.checksumMismatch(version: 1, fileName: "0001_first.sql")) {
            try await edited.migrate()
        }
        let message = MigrationError.checksumMismatch(version: 1, fileName: "0001_first.sql").description
        #expect(message.hasPrefix("migration 0001_first.sql (version 1) was edited after it was applied"))
        await database.drop()
    }

    @Test func aNewFileOlderThanTheNewestAppliedOneIsRefused() async throws {
        let database = try await TestDatabase.empty()
        let directory = try scratchDirectory(files: ["0001_first.sql": "SELECT 1;", "0003_third.sql": "SELECT 3;"])
        try await Migrator(pool: database.pool, migrations: Migration.load(from: directory)).migrate()

        try "SELECT 2;".write(to: directory.appendingPathComponent("0002_second.sql"), atomically: true, encoding: .utf8)
        let migrator = Migrator(pool: database.pool, migrations: try Migration.load(from: directory))

        await #expect(throws: MigrationError.notAPrefix(fileName: "0002_second.sql", newestApplied: 3)) {
            try await migrator.migrate()
        }
        await database.drop()
    }

    @Test func anAppliedVersionMissingOnDiskIsRefused() async throws {
        let database = try await TestDatabase.empty()
        let directory = try scratchDirectory(files: ["0001_first.sql": "SELECT 1;", "0002_second.sql": "SELECT 2;"])
        try await Migrator(pool: database.pool, migrations: Migration.load(from: directory)).migrate()

        try FileManager.default.removeItem(at: directory.appendingPathComponent("0002_second.sql"))
        let migrator = Migrator(pool: database.pool, migrations: try Migration.load(from: directory))

        await #expect(throws: MigrationError.unknownAppliedVersion(2)) {
            try await migrator.pending()
        }
        await database.drop()
    }

    @Test func aFailingFileRollsBackAndLeavesEarlierOnesApplied() async throws {
        let database = try await TestDatabase.empty()
        let directory = try scratchDirectory(files: [
            "0001_good.sql": "CREATE TABLE good (id int);",
            "0002_bad.sql": "CREATE TABLE half (id int); SELECT no_such_column FROM good;",
        ])
        let migrator = Migrator(pool: database.pool, migrations: try Migration.load(from: directory))

        await #expect(throws: PostgresError.self) { try await migrator.migrate() }

        let tables = try await database.pool.withConnection { connection in
            try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").map { try $0.decode(0, as: String.self) }
        }
        #expect(tables == ["good", "schema_migrations"])
        #expect(try await migrator.pending().map(\.fileName) == ["0002_bad.sql"])
        await database.drop()
    }

    @Test func concurrentMigratorsApplyEachFileExactlyOnce() async throws {
        let database = try await TestDatabase.empty()
        let migrations = try TestDatabase.migrations()
        let pools = (0..<4).map { _ in PostgresPool(.init(url: database.url, size: 1)) }

        let appliedCounts = try await withThrowingTaskGroup(of: Int.self) { group in
            for pool in pools {
                group.addTask { try await Migrator(pool: pool, migrations: migrations).migrate().count }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(appliedCounts.sorted() == [0, 0, 0, migrations.count])
        for pool in pools { await pool.close() }
        await database.drop()
    }

    @Test(arguments: ["1_short.sql", "0001-dash.sql", "0001_Upper.sql", "abcd_name.sql"])
    func badFileNamesAreRejected(name: String) throws {
        let directory = try scratchDirectory(files: [name: "SELECT 1;"])
        #expect(throws: MigrationError.badFileName(name)) { try Migration.load(from: directory) }
    }

    @Test func duplicateVersionsAreRejected() throws {
        let directory = try scratchDirectory(files: ["0001_a.sql": "SELECT 1;", "0001_b.sql": "SELECT 2;"])
        #expect(throws: MigrationError.duplicateVersion(1, "0001_a.sql", "0001_b.sql")) { try Migration.load(from: directory) }
    }

    private func scratchDirectory(files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }
}
