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

/// Where the console is served: off with ADMIN_CONSOLE=false; on a listener of its own with
/// ADMIN_CONSOLE_HOST/PORT, and then not on the API's port.
@Suite struct ConsolePlacementTests {
    @Test func theConsoleCanBeTurnedOffOrMovedToItsOwnListener() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-console-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let base = ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0", "METRICS": "false", "MIGRATE_ON_START": "false"]
        func status(_ port: Int, _ path: String) async throws -> Int {
            try await RawHTTPClient.request("GET", path, port: port).status
        }

        let off = try Market09Process(["serve"], environment: base.merging(["ADMIN_CONSOLE": "false"]) { $1 }, directory: directory)
        let offPort = try await off.waitUntilListening()
        #expect(try await status(offPort, "/admin/login") == 404)
        #expect(try await off.stop(signal: SIGTERM) == 0)

        let apart = try Market09Process(["serve"], environment: base.merging(["ADMIN_CONSOLE_HOST": "127.0.0.1", "ADMIN_CONSOLE_PORT": "0"]) { $1 },
                                        directory: directory)
        let consoleLine = try await apart.waitForLine(message: "console listening", timeoutSeconds: 60)
        let apiPort = try await apart.waitUntilListening()
        let consolePort = try #require(consoleLine["port"] as? Int)
        #expect(try await status(apiPort, "/admin/login") == 404)
        #expect(try await status(consolePort, "/admin/login") == 200)
        #expect(try await status(consolePort, "/v1/categories") == 404, "the console's listener serves the API")
        #expect(try await apart.stop(signal: SIGTERM) == 0)

        // One of the two alone is a configuration error, said at start.
        let half = try await Market09Process.run(["serve"], environment: base.merging(["ADMIN_CONSOLE_PORT": "8081"]) { $1 }, directory: directory)
        #expect(half.code != 0 && half.output.contains("ADMIN_CONSOLE_HOST"), "\(half.output)")
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
