import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The shipped Prometheus alert rules (deploy/prometheus) are valid and fire when they
/// should: promtool's own rule tests, from Debian's prometheus package.
@Suite struct AlertRulesTests {
    @Test func backupAlertsFireOnAStaleBackupAndAFailingArchive() async throws {
        let directory = TestDatabase.packageRoot.appendingPathComponent("deploy/prometheus").path
        let checked = try await ExternalCommand.run(["promtool", "check", "rules", directory + "/market09-backups.rules.yml"], timeoutSeconds: 60)
        #expect(checked.code == 0 && checked.output.contains("SUCCESS: 3 rules found"), "\(checked.output)")
        let tested = try await ExternalCommand.run(["promtool", "test", "rules", directory + "/market09-backups.test.yml"], timeoutSeconds: 60)
        #expect(tested.code == 0 && tested.output.contains("SUCCESS"), "\(tested.output)")
    }
}
