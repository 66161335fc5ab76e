import App
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Workers

/// The database a command works on: the configured URL, or the embedded cluster, started
/// on demand and stopped again by ``release()`` when this process started it.
struct DatabaseTarget: Sendable {
    let url: String
    private let startedCluster: EmbeddedPostgres?

    /// Uses `databaseURL` when given; otherwise starts (creating on first run) the embedded
    /// cluster in `dataDirectory` and its `market09` database.
    static func resolve(databaseURL: String?, dataDirectory: String, logger: Logger) async throws -> DatabaseTarget {
        if let databaseURL {
            return DatabaseTarget(url: databaseURL, startedCluster: nil)
        }
        let directory = URL(fileURLWithPath: dataDirectory, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
        let cluster = try EmbeddedPostgres(directory: directory)
        logger.info("using embedded PostgreSQL", ["directory": .string(cluster.directory.path)])
        let started = try await BlockingWork.run(name: "embedded-postgres") {
            let started = try cluster.start()
            do {
                try cluster.createDatabase()
            } catch {
                if started { try? cluster.stop() }
                throw error
            }
            return started
        }
        return DatabaseTarget(url: cluster.url(), startedCluster: started ? cluster : nil)
    }

    /// For one-shot commands: resolves the database, runs `body` with a one-connection
    /// pool, then closes the pool and stops a cluster this process started. Errors become
    /// one line and exit code 1. No statement timeout: a deployment behind PgBouncer puts
    /// the requests' 2 s on the role (deploy/pgbouncer/roles.sql), and a seed, an import or
    /// a prune is not a request (the bulk seed's rebuild failed after 2 s).
    /// The database a command names: `--database-url`, else DATABASE_URL, else the embedded cluster.
    static func withPool(_ parsed: ParsedArguments, _ environment: [String: String], _ body: (PostgresPool) async throws -> Int32) async -> Int32 {
        await withPool(databaseURL: CommandLineInterface.databaseURL(parsed, environment), environment: environment, body)
    }

    static func withPool(databaseURL: String?, environment: [String: String], _ body: (PostgresPool) async throws -> Int32) async -> Int32 {
        let logger = Logger(minimumLevel: .warning)
        let dataDirectory = absolute(environment["MARKET09_DATA_DIR"] ?? ".market09")
        if let databaseURL {
            CommandLineInterface.printError("market09: database: \(redacted(databaseURL))")
        } else if FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("pgdata/PG_VERSION").path) {
            CommandLineInterface.printError("market09: database: the embedded cluster in \(dataDirectory.path)")
        } else {
            // Run from another directory, a one-shot command would otherwise create a second,
            // empty cluster and report on it (`admin stats`: all zeroes) as if nothing were wrong.
            CommandLineInterface.printError("""
                market09: error: no database: no embedded cluster in \(dataDirectory.path). Run this where \
                `market09 serve` runs (it creates ./.market09), or set MARKET09_DATA_DIR, DATABASE_URL or --database-url
                """)
            return 1
        }
        let database: DatabaseTarget
        do {
            database = try await resolve(databaseURL: databaseURL, dataDirectory: dataDirectory.path, logger: logger)
        } catch {
            return CommandLineInterface.fail(error)
        }
        let pool = PostgresPool(.init(url: database.url, size: 1, statementTimeout: .zero))
        let status: Int32
        do {
            status = try await body(pool)
        } catch {
            status = CommandLineInterface.fail(error)
        }
        await pool.close()
        await database.release(logger: logger)
        return status
    }

    static func absolute(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)).standardizedFileURL
    }

    /// `url` without its password (`postgres://u:secret@h/db` or `password=secret`), to print.
    static func redacted(_ url: String) -> String {
        if var components = URLComponents(string: url), components.scheme != nil {
            if components.password != nil { components.password = "***" }
            components.queryItems = components.queryItems?.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
            return components.string ?? url
        }
        return url.replacing(/password\s*=\s*('[^']*'|\S+)/) { _ in "password=***" }
    }

    /// Stops the embedded cluster if this process started it.
    func release(logger: Logger) async {
        guard let cluster = startedCluster else { return }
        do {
            try await BlockingWork.run(name: "embedded-postgres") { try cluster.stop() }
            logger.info("embedded PostgreSQL stopped")
        } catch {
            logger.error("could not stop embedded PostgreSQL", ["error": .string(String(describing: error))])
        }
    }
}
