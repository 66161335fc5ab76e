import App
import Data
import Foundation

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
    static func withPool(databaseURL: String?, environment: [String: String], _ body: (PostgresPool) async throws -> Int32) async -> Int32 {
        let logger = Logger(minimumLevel: .warning)
        let database: DatabaseTarget
        do {
            database = try await resolve(databaseURL: databaseURL, dataDirectory: environment["MARKET09_DATA_DIR"] ?? ".market09", logger: logger)
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
