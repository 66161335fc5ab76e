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
