import Foundation
import Persistence
import TestSupport
import Workers

/// A PostgreSQL cluster of a test's own, in a temporary directory, for tests that stop and
/// restart the server under a running pool. Built on the same ``EmbeddedPostgres`` the
/// server's embedded default uses.
public struct ThrowawayCluster: Sendable {
    /// The cluster.
    public let postgres: EmbeddedPostgres

    /// Initialises and starts a cluster with durability turned off (it is thrown away);
    /// `durableCommits` keeps `synchronous_commit` on, for tests that kill the server and
    /// count acknowledged writes (fsync stays off: the machine itself does not crash).
    public static func start(durableCommits: Bool = false) async throws -> ThrowawayCluster {
        // Under the test command's own directory when it gives one, so that clusters a
        // failing test never destroyed are stopped when the test command exits.
        let root = ProcessInfo.processInfo.environment["MARKET09_THROWAWAY_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let directory = URL(fileURLWithPath: root + "/m09c-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        let settings = ["fsync=off", "full_page_writes=off"] + (durableCommits ? [] : ["synchronous_commit=off"])
        let postgres = try EmbeddedPostgres(directory: directory, settings: settings)
        try await BlockingWork.run(name: "test-cluster") {
            try postgres.start()
            try postgres.createDatabase()
        }
        return ThrowawayCluster(postgres: postgres)
    }

    /// A streaming replica of this cluster (a hot standby replaying its WAL), started.
    public func startReplica() async throws -> ThrowawayCluster {
        let directory = postgres.directory.deletingLastPathComponent().appendingPathComponent(
            "m09r-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        let replica = try await BlockingWork.run(name: "test-cluster") {
            try postgres.startStreamingReplica(in: directory, settings: ["fsync=off", "hot_standby_feedback=on"])
        }
        return ThrowawayCluster(postgres: replica)
    }

    /// The URL of its `market09` database.
    public var url: String { postgres.url() }

    /// Stops the server, keeping the data; `immediately` kills it as a crash would.
    public func stop(immediately: Bool = false) async throws {
        try await BlockingWork.run(name: "test-cluster") { try postgres.stop(immediately: immediately) }
    }

    /// Kills the postmaster with SIGKILL, as the OOM killer or an operator's `kill -9`
    /// would (its backends exit when they notice), and waits until it is gone.
    public func kill9() async throws {
        let pidFile = postgres.directory.appendingPathComponent("pgdata/postmaster.pid")
        let text = try String(contentsOf: pidFile, encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { throw TestEnvironmentError("no postmaster pid in \(pidFile.path)") }
        guard kill(pid, SIGKILL) == 0 else { throw TestEnvironmentError("kill -9 \(pid) failed") }
        for _ in 0..<200 where kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Starts the server again after a crash, retrying while the dead server's backends
    /// still hold its shared memory (PostgreSQL refuses to start until they have exited).
    public func restartAfterCrash(within limit: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            do {
                return try await restart()
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
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
