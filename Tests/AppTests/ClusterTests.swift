import Foundation
import Testing
import TestSupport

/// `scripts/cluster up` on this machine (pg_auto_failover monitor, a synchronous pair, an
/// async read replica, three `market09` instances, nginx), then Tests/e2e/cluster_check.py
/// through the balancer: auth flows, a like storm with exact counts, read-your-writes on
/// every instance, a logout seen everywhere, one job leader, and a `kill -9` of the primary
/// during a like storm (200 again within 15 s, only 200 and 503 meanwhile, no acknowledged
/// like lost). `scripts/cluster down` afterwards, whatever happened.
@Suite struct ClusterTests {
    @Test func theClusterServesThroughTheBalancerAndSurvivesTheLossOfItsPrimary() async throws {
        let root = TestDatabase.packageRoot
        let state = "/tmp/m09-cluster-" + UUID().uuidString.prefix(8).lowercased()
        var environment = ProcessInfo.processInfo.environment
        environment["CLUSTER_DIR"] = state
        environment["CLUSTER_PORT"] = String(try RawHTTPClient.connectableFreePort())
        environment["MARKET09_BIN"] = try Market09Process.executablePath()
        environment["PASSWORD_HASH_ITERATIONS"] = "10000"
        let script = root.appendingPathComponent("scripts/cluster").path
        do {
            let up = try await ExternalCommand.run([script, "up"], environment: environment, timeoutSeconds: 600)
            try #require(up.code == 0, "scripts/cluster up failed:\n\(up.output.suffix(6_000))")
            let check = try await ExternalCommand.run([
                "python3", root.appendingPathComponent("Tests/e2e/cluster_check.py").path,
                "http://127.0.0.1:\(environment["CLUSTER_PORT"]!)", "18101", "18102", "18103",
            ], environment: environment, timeoutSeconds: 300)
            #expect(check.code == 0, "the cluster check failed:\n\(check.output.suffix(6_000))")
            print(check.output)
        } catch {
            _ = try? await ExternalCommand.run([script, "down"], environment: environment, timeoutSeconds: 120)
            throw error
        }
        let down = try await ExternalCommand.run([script, "down"], environment: environment, timeoutSeconds: 120)
        #expect(down.code == 0, "\(down.output.suffix(2_000))")
        #expect(!FileManager.default.fileExists(atPath: state), "down removes what up made")
    }
}
