import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// Runs against a cluster of its own, stopped and restarted under a live pool.
@Suite struct PostgresRestartTests {
    @Test(arguments: [false, true])
    func thePoolReconnectsAfterTheServerRestarts(crash: Bool) async throws {
        let cluster = try await ThrowawayCluster.start()
        let pool = PostgresPool(.init(url: cluster.url, size: 4, connectTimeoutSeconds: 2))
        try await pingConcurrently(pool, times: 8)

        try await cluster.stop(immediately: crash)
        // While the server is down every request fails the same typed way: never "other".
        let codes = await withTaskGroup(of: PostgresError.Code?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do { try await pool.ping(); return nil } catch { return (error as? PostgresError)?.code }
                }
            }
            return await group.reduce(into: [PostgresError.Code?]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: .connectionFailure, count: 8))

        try await cluster.restart()
        // Every pooled connection died with the old server; each is replaced on demand.
        try await pingConcurrently(pool, times: 8)

        await pool.close()
        await cluster.destroy()
    }

    private func pingConcurrently(_ pool: PostgresPool, times: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<times { group.addTask { try await pool.ping() } }
            try await group.waitForAll()
        }
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
