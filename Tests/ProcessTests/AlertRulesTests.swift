import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The shipped Prometheus alert rules (deploy/prometheus) are valid and fire when they
/// should, and stay silent when they should not: promtool's own rule tests, from Debian's
/// prometheus package. The scrape configuration the compose profile runs is valid too.
@Suite struct AlertRulesTests {
    private let directory = TestDatabase.packageRoot.appendingPathComponent("deploy/prometheus").path

    @Test func backupAlertsFireOnAStaleBackupAndAFailingArchive() async throws {
        let checked = try await ExternalCommand.run(["promtool", "check", "rules", directory + "/market09-backups.rules.yml"], timeoutSeconds: 60)
        #expect(checked.code == 0 && checked.output.contains("SUCCESS: 3 rules found"), "\(checked.output)")
        let tested = try await ExternalCommand.run(["promtool", "test", "rules", directory + "/market09-backups.test.yml"], timeoutSeconds: 60)
        #expect(tested.code == 0 && tested.output.contains("SUCCESS"), "\(tested.output)")
    }

    @Test func serviceAlertsFireOnErrorsLatencyLagSaturationNoLeaderAndALowDisk() async throws {
        let checked = try await ExternalCommand.run(["promtool", "check", "rules", directory + "/market09.rules.yml"], timeoutSeconds: 60)
        #expect(checked.code == 0 && checked.output.contains("SUCCESS: 6 rules found"), "\(checked.output)")
        let tested = try await ExternalCommand.run(["promtool", "test", "rules", directory + "/market09.test.yml"], timeoutSeconds: 60)
        #expect(tested.code == 0 && tested.output.contains("SUCCESS"), "\(tested.output)")
    }

    @Test func theScrapeConfigurationIsValid() async throws {
        // The compose service writes the token file before Prometheus starts.
        try "scrape-token-0123456789".write(toFile: "/tmp/metrics-token", atomically: true, encoding: .utf8)
        let checked = try await ExternalCommand.run(["promtool", "check", "config", directory + "/prometheus.yml"], timeoutSeconds: 60)
        #expect(checked.code == 0 && checked.output.contains("SUCCESS"), "\(checked.output)")
    }
}
