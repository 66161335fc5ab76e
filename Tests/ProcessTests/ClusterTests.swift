import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The two multi-machine topologies, each started on this machine by its script and driven
/// from outside by Tests/e2e/cluster_check.py through nginx: auth flows, a like storm with
/// exact counts, read-your-writes on every instance, a logout seen everywhere, one job
/// leader, every instance on a healthy replica. One at a time: each takes the machine.
@Suite(.serialized) struct ClusterTests {
    /// `scripts/cluster up` (pg_auto_failover monitor, a synchronous pair, an async read
    /// replica, three instances, nginx), and a `kill -9` of the primary during a like storm:
    /// 200 again within 15 s, only 200 and 503 meanwhile, no acknowledged like lost.
    @Test func theClusterServesThroughTheBalancerAndSurvivesTheLossOfItsPrimary() async throws {
        try await Topology(script: "scripts/cluster", directoryVariable: "CLUSTER_DIR", portVariable: "CLUSTER_PORT",
                           instances: ["18101", "18102", "18103"]).check { state in Self.clusterCheck(state) }
    }

    /// What cluster_check.py needs of scripts/cluster: its password file and databases.
    static func clusterCheck(_ state: String) -> [String: String] {
        ["PGPASSFILE": state + "/secrets/pgpass", "CHECK_DATABASE_PORTS": "5500,5501,5502,5503"]
    }

    /// The same cluster behind HAProxy (`CLUSTER_BALANCER=haproxy`), which asks every
    /// instance's `/ready` twice a second: an instance stopped with SIGSTOP (it still accepts
    /// connections, answers nothing) is taken out, and every request is answered 200 within
    /// 5 s; behind nginx, which only notices refused connections, a third of them would wait
    /// 30 s. Then the failover drill as above.
    @Test func behindHAProxyAHungInstanceIsTakenOutAndTheClusterSurvivesItsPrimary() async throws {
        try await Topology(script: "scripts/cluster", directoryVariable: "CLUSTER_DIR", portVariable: "CLUSTER_PORT",
                           instances: ["18101", "18102", "18103"], environment: ["CLUSTER_BALANCER": "haproxy"],
                           arguments: ["--frozen"]).check { state in Self.clusterCheck(state) }
    }

    /// The restore drill on the cluster (Tests/e2e/cluster_backup_drill.py): `scripts/cluster
    /// run seed demo`, a backup from a standby, a write load during which the primary is
    /// killed, an accident, `scripts/cluster restore --to T-1s` from the backup before the
    /// failover: every write acknowledged before T-1 s is served by the restored copy,
    /// nothing after T is in it. The archive has no gap across the failover.
    @Test func theClusterRestoresToAMomentAcrossAFailover() async throws {
        try await Topology(script: "scripts/cluster", directoryVariable: "CLUSTER_DIR", portVariable: "CLUSTER_PORT",
                           instances: [], checker: "Tests/e2e/cluster_backup_drill.py").check { state in Self.clusterCheck(state) }
    }

    /// `scripts/compose-direct up`: docker-compose.yml's services as processes, each running
    /// the deploy/ file its container runs (PgBouncer in transaction mode in front of the
    /// primary, a streaming replica made by pg_basebackup, three instances, nginx).
    @Test func theComposeTopologyServesThroughTheBalancer() async throws {
        try await Topology(script: "scripts/compose-direct", directoryVariable: "COMPOSE_DIR", portVariable: "COMPOSE_PORT",
                           instances: ["18111", "18112", "18113"], arguments: ["--no-failover"]).check { state in
            let password = try String(contentsOfFile: state + "/secrets/market09-password", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return ["CHECK_PRIMARY_URL": "postgres://market09:\(password)@127.0.0.1:5611/market09", "CHECK_DATABASE_PORTS": "5611,5612"]
        }
    }
}

/// A topology script's `up`, the check through its balancer, and its `down` whatever happened.
private struct Topology {
    let script: String
    let directoryVariable: String
    let portVariable: String
    let instances: [String]
    var environment: [String: String] = [:]
    /// For the checker after the balancer's URL and the instances' ports.
    var arguments: [String] = []
    /// What drives the topology from outside.
    var checker = "Tests/e2e/cluster_check.py"

    func check(_ checkEnvironment: (String) throws -> [String: String]) async throws {
        let root = TestDatabase.packageRoot
        let state = "/tmp/m09-topology-" + UUID().uuidString.prefix(8).lowercased()
        let port = String(try RawHTTPClient.connectableFreePort())
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment[directoryVariable] = state
        environment[portVariable] = port
        environment["MARKET09_BIN"] = try Market09Process.executablePath()
        environment["PASSWORD_HASH_ITERATIONS"] = "10000"
        let path = root.appendingPathComponent(script).path
        do {
            let up = try await ExternalCommand.run([path, "up"], environment: environment, timeoutSeconds: 600)
            try #require(up.code == 0, "\(script) up failed:\n\(up.output.suffix(6_000))")
            let check = try await ExternalCommand.run(
                ["python3", root.appendingPathComponent(checker).path, "http://127.0.0.1:\(port)"]
                    + instances + arguments,
                environment: environment.merging(try checkEnvironment(state)) { $1 }, timeoutSeconds: 480)
            #expect(check.code == 0, "the check through \(script) failed:\n\(check.output.suffix(6_000))")
            print(check.output)
        } catch {
            _ = try? await ExternalCommand.run([path, "down"], environment: environment, timeoutSeconds: 120)
            throw error
        }
        let down = try await ExternalCommand.run([path, "down"], environment: environment, timeoutSeconds: 120)
        #expect(down.code == 0, "\(down.output.suffix(2_000))")
        #expect(!FileManager.default.fileExists(atPath: state), "down removes what up made")
    }
}
