import App
import Foundation
import HTTPServer
import Persistence
import PostgresDriver

/// `market09 migrate [--dry-run]`: applies (or lists) pending migrations.
enum MigrateCommand {
    static let help = """
        Usage: market09 migrate [--dry-run] [--database-url URL]

        Applies pending SQL migrations from MIGRATIONS_DIR (default: migrations/ beside the
        executable or a parent directory), each in its own transaction, under an advisory
        lock so concurrent runs take turns. Refuses to run when an applied file was edited
        or when the applied versions are not a prefix of the files.

        Options:
          --dry-run            List pending migrations without applying them; exit 1 if any.
          --database-url URL   Database to migrate (default: DATABASE_URL, else the embedded cluster).
          -h, --help           Show this help.
        """

    static func run(arguments: [String], environment: [String: String], executablePath: String) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: ["dry-run"], options: ["database-url"])
        _ = try parsed.positionals()
        let migrations = try Migration.load(from: Migration.locateDirectory(environment: environment, executablePath: executablePath))
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let migrator = Migrator(pool: pool, migrations: migrations)
            if parsed.flag("dry-run") {
                let pending = try await migrator.pending()
                CommandLineInterface.printLine(pending.isEmpty ? "up to date (\(migrations.count) migrations applied)" : "pending: " + pending.map(\.fileName).joined(separator: " "))
                return pending.isEmpty ? 0 : 1
            }
            let applied = try await migrator.migrate()
            CommandLineInterface.printLine(applied.isEmpty ? "up to date (\(migrations.count) migrations applied)" : "applied: " + applied.map(\.fileName).joined(separator: " "))
            return 0
        }
    }
}
