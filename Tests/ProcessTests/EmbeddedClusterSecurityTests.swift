import Foundation
import Persistence
import ProcessSupport
import TestSupport
import Testing
import Workers

/// The embedded default on a machine with other accounts: nobody else may enter the
/// database (which would make them superuser) or read the secrets beside it.
@Suite struct EmbeddedClusterSecurityTests {
    /// Runs `command` as the unprivileged `nobody` account; whether it exited 0.
    private func asNobody(_ command: [String]) async throws -> Bool {
        try await BlockingWork.run(name: "as-nobody") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "nobody", "--"] + command
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }

    @Test func anotherLocalAccountCanNeitherConnectNorReadSecrets() async throws {
        try #require(geteuid() == 0, "switching to the nobody account needs root (as scripts/test runs in CI)")
        // A directory every account can traverse, as an application directory usually is.
        let directory = "/tmp/m09s-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let server = try Market09Process(["serve"], environment: ["PORT": "0"], directory: directory)
        _ = try await server.waitUntilListening()
        let dataDirectory = directory + "/.market09"
        let sockets = try FileManager.default.contentsOfDirectory(atPath: "/tmp").map { "/tmp/" + $0 } + [dataDirectory + "/socket"]
        let socketDirectories = sockets.filter { FileManager.default.fileExists(atPath: $0 + "/.s.PGSQL.5432") }
        #expect(!socketDirectories.isEmpty, "the cluster's socket was not found")

        for socket in socketDirectories where socket.hasPrefix(dataDirectory) || socket.hasPrefix("/tmp/market09-") {
            for user in ["market09", "postgres", "nobody"] {
                let connected = try await asNobody(["/usr/bin/psql", "-w", "-X", "-A", "-t", "-c", "SELECT 1",
                                          "host=\(socket) port=5432 user=\(user) dbname=market09 connect_timeout=3"])
                #expect(!connected, "nobody connected as \(user) through \(socket)")
            }
        }
        for secret in ["jwt-secret", "db-password", "pgdata/postgresql.auto.conf"] {
            #expect(try await !asNobody(["/bin/cat", dataDirectory + "/" + secret]), "nobody read \(secret)")
        }
        #expect(try await !asNobody(["/bin/ls", dataDirectory]), "nobody listed .market09")

        #expect(try await server.stop(signal: SIGTERM) == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
