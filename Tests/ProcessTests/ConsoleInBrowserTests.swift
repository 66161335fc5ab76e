import Foundation
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// The operators' console in a real headless browser (Debian's chromium, selenium and
/// axe-core from PyPI): Tests/e2e/console_in_browser.py signs in, approves, edits, hides,
/// makes and revokes a key, tries a forged form and hostile text, checks each in the
/// app's API and the audit log, and runs axe on every page.
@Suite struct ConsoleInBrowserTests {
    @Test func anOperatorRunsTheDayFromTheConsole() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-console-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0", "SUPABASE_ANON_KEY": "console-test-anon-key"]
        let passwordFile = directory + "/pw"
        try "console-admin-password\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let created = try await Market09Process.run(
            ["/bin/sh", "-c", "exec \"$0\" admin create-user --email ops@console.test --password-stdin --admin < \(passwordFile)"],
            environment: environment, directory: directory, viaShell: true)
        #expect(created.code == 0, "\(created.output)")
        // An influencer whose name and bio came from Instagram, hostile.
        let influencer: Int = try await database.pool.withConnection { connection in
            try connection.query("""
                INSERT INTO influencers (username, full_name, biography, followers_count)
                VALUES ('hostile.kim', '<img src=x onerror=alert(1)>', '<script>alert(1)</script>', 20000) RETURNING id
                """).single().decode(0)
        }
        let server = try Market09Process(["serve"], environment: environment, directory: directory)
        let port = try await server.waitUntilListening()
        let screenshot = ProcessInfo.processInfo.environment["CONSOLE_SCREENSHOT"] ?? directory + "/console-overview.png"
        let browser = try await ExternalCommand.run(
            ["python3", TestDatabase.packageRoot.appendingPathComponent("Tests/e2e/console_in_browser.py").path, "http://127.0.0.1:\(port)",
             "ops@console.test", "console-admin-password", String(influencer), "console-test-anon-key", screenshot],
            timeoutSeconds: 240)
        #expect(browser.code == 0 && browser.output.hasSuffix("ok\n"), "\(browser.output)")

        // The CLI reads the same log.
        let audit = try await Market09Process.run(["admin", "audit", "--limit", "20"], environment: environment, directory: directory)
        #expect(audit.code == 0 && audit.output.contains("post.hide") && audit.output.contains("ops@console.test"), "\(audit.output)")
        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
