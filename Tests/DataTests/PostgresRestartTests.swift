import Data
import Foundation
import Testing
import TestSupport

/// Runs against a cluster of its own, stopped and restarted under a live pool.
@Suite struct PostgresRestartTests {
    @Test func thePoolReconnectsAfterTheServerRestarts() async throws {
        let cluster = try await ThrowawayCluster.start()
        let pool = PostgresPool(.init(url: cluster.url, size: 2, connectTimeoutSeconds: 2))
        try await pool.ping()
        try await pool.ping()

        try await cluster.stop()
        let down = await #expect(throws: PostgresError.self) { try await pool.ping() }
        #expect(down?.code == .connectionFailure)

        try await cluster.restart()
        // Every pooled connection died with the old server; each is replaced on demand.
        for _ in 0..<4 { try await pool.ping() }

        await pool.close()
        await cluster.destroy()
    }

    @Test func theEmbeddedClusterStartsFromAnEmptyDirectoryAndStops() async throws {
        let cluster = try await ThrowawayCluster.start()
        #expect(cluster.postgres.isRunning())
        let pool = PostgresPool(.init(url: cluster.url, size: 1))
        let database = try await pool.withConnection { try $0.query("SELECT current_database()").first!.decode(0, as: String.self) }
        #expect(database == "market09")
        await pool.close()

        try await cluster.stop()
        #expect(!cluster.postgres.isRunning())
        await cluster.destroy()
        #expect(!FileManager.default.fileExists(atPath: cluster.postgres.directory.path))
    }
}
