import Data
import Foundation

/// A PostgreSQL cluster of a test's own, in a temporary directory, for tests that stop and
/// restart the server under a running pool. Built on the same ``EmbeddedPostgres`` the
/// server's embedded default uses.
public struct ThrowawayCluster: Sendable {
    /// The cluster.
    public let postgres: EmbeddedPostgres

    /// Initialises and starts a cluster with durability turned off (it is thrown away).
    public static func start() async throws -> ThrowawayCluster {
        // Under the test command's own directory when it gives one, so that clusters a
        // failing test never destroyed are stopped when the test command exits.
        let root = ProcessInfo.processInfo.environment["MARKET09_THROWAWAY_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let directory = URL(fileURLWithPath: root + "/m09c-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        let postgres = try EmbeddedPostgres(directory: directory, settings: ["fsync=off", "synchronous_commit=off", "full_page_writes=off"])
        try await BlockingWork.run(name: "test-cluster") {
            try postgres.start()
            try postgres.createDatabase()
        }
        return ThrowawayCluster(postgres: postgres)
    }

    /// The URL of its `market09` database.
    public var url: String { postgres.url() }

    /// Stops the server, keeping the data; `immediately` kills it as a crash would.
    public func stop(immediately: Bool = false) async throws {
        try await BlockingWork.run(name: "test-cluster") { try postgres.stop(immediately: immediately) }
    }

    /// Starts the server again.
    public func restart() async throws {
        try await BlockingWork.run(name: "test-cluster") { _ = try postgres.start() }
    }

    /// Stops the server and deletes the directory.
    public func destroy() async {
        _ = try? await BlockingWork.run(name: "test-cluster") { try postgres.destroy() }
    }
}
