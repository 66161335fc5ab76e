import Foundation
import Persistence
import PostgresDriver
import TestSupport
import Workers

/// PgBouncer (Debian's 1.18) in transaction mode in front of a test cluster, on a loopback
/// port of its own, run in the foreground and stopped with the test — through
/// `deploy/pgbouncer/start.sh`, so the tests run the configuration that ships.
public final class PgBouncerProcess: Sendable {
    /// The child.
    public let process: ChildProcess
    /// Where clients connect (`postgresql://…@127.0.0.1:<port>/market09`).
    public let url: String
    private let directory: String

    /// Starts PgBouncer for `cluster`'s `market09` database with `serverConnections` server
    /// connections; waits until it accepts connections.
    public init(for cluster: ThrowawayCluster, serverConnections: Int) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/pgbouncer") else {
            throw TestEnvironmentError("pgbouncer is missing: apt-get install -y pgbouncer (scripts/install-deps --test does)")
        }
        let parsed = try require_(URLComponents(string: cluster.url), "cluster URL")
        let password = parsed.password ?? ""
        directory = cluster.postgres.directory.deletingLastPathComponent().appendingPathComponent("pgb-" + UUID().uuidString.prefix(8).lowercased()).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try RawHTTPClient.connectableFreePort()
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "/usr/sbin:" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["PRIMARY_HOST"] = cluster.postgres.socketDirectory.path  // a unix socket directory
        environment["PRIMARY_PORT"] = "5432"
        environment["LISTEN_ADDR"] = "127.0.0.1"
        environment["LISTEN_PORT"] = String(port)
        environment["POOL_SIZE"] = String(serverConnections)
        environment["MARKET09_PASSWORD"] = password
        environment["RUN_DIR"] = directory
        // PgBouncer will not run as root: as the account that owns the cluster, then.
        let script = TestDatabase.packageRoot.appendingPathComponent("deploy/pgbouncer/start.sh").path
        var command = ["/bin/sh", script]
        if geteuid() == 0, let account = getpwnam("postgres") {
            _ = chown(directory, account.pointee.pw_uid, account.pointee.pw_gid)
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command
        }
        process = try ChildProcess(command, environment: environment, directory: directory,
                                   outputPath: directory + "/stdout.log")
        url = "postgresql://market09:\(password)@127.0.0.1:\(port)/market09"
        let deadline = Date().addingTimeInterval(10)
        while (try? PostgresConnection(url: url, connectTimeoutSeconds: 1, mode: .unnamed)) == nil {
            guard Date() < deadline else { throw TestEnvironmentError("pgbouncer did not start: \(process.output())") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops PgBouncer and removes its directory.
    public func stop() async {
        process.send(SIGTERM)
        let process = process
        _ = try? await BlockingWork.run { process.waitForExit() }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

private func require_<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw TestEnvironmentError("no \(what)") }
    return value
}
