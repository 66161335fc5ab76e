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
        or when the applied versions are not a prefix of the files. Then rolls the live
        posts' search index forward when it is two weeks old (a concurrent build: writes go
        on), as `serve` does every hour where its role owns the tables.

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
            // The live posts' gram index, rolled as the tables' owner: a server whose role
            // only reads and writes rows cannot (docs/operations.md, Deployment).
            let rolled: LiveSearchIndex.Outcome
            do {
                rolled = try await LiveSearchIndex.roll(now: Date(), pool: pool)
            } catch {
                // The migrations are applied; the index is the server's job's to retry.
                CommandLineInterface.printLine("live search index: not rolled: \(error)")
                return 0
            }
            switch rolled {
            case .built(let name, let dropped):
                CommandLineInterface.printLine("live search index: built \(name)" + (dropped.isEmpty ? "" : ", dropped " + dropped.joined(separator: " ")))
            case .current(let name, _):
                CommandLineInterface.printLine("live search index: \(name) is current")
            case .buildingElsewhere(let name):
                CommandLineInterface.printLine("live search index: \(name) is being built by another session")
            case .notPermitted:
                CommandLineInterface.printLine("live search index: not rolled (this role does not own posts)")
            }
            return 0
        }
    }
}
