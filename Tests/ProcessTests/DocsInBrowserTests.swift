@testable import App
import Foundation
import HTTPServer
import ProcessSupport
import TestSupport
import Testing

/// `/docs` in a real headless browser (Debian's chromium, selenium from PyPI; scripts/test
/// installs both): the page loads the contract, lists every tag, and "Try it out" on
/// `GET /v1/categories` shows a 200. Swagger UI comes from the local copy
/// (`DOCS_ASSETS_DIR`), as offline use needs and CI (no CDN) allows.
@Suite struct DocsInBrowserTests {
    @Test func theReferencePageListsEveryTagAndTriesAnOperation() async throws {
        let root = TestDatabase.packageRoot
        let contract = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        guard case .mapping(let document) = try YAMLDocument.parse(contract),
              case .sequence(let tagList)? = document.first(where: { $0.key == "tags" })?.value else {
            Issue.record("openapi.yaml has no tags list")
            return
        }
        let tags = tagList.compactMap { tag -> String? in
            guard case .mapping(let fields) = tag, case .string(let name)? = fields.first(where: { $0.key == "name" })?.value else { return nil }
            return name
        }
        #expect(tags.count >= 6)

        let assets = try await SwaggerUICopy.directory()

        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-docs-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                  "DOCS_ASSETS_DIR": assets], directory: directory)
        let port = try await server.waitUntilListening()
        let browser = try await ExternalCommand.run(
            ["python3", root.appendingPathComponent("Tests/e2e/docs_in_browser.py").path, "http://127.0.0.1:\(port)", tags.joined(separator: ",")],
            timeoutSeconds: 120)
        #expect(browser.code == 0 && browser.output.hasSuffix("ok\n"), "\(browser.output)")

        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The default configuration (Swagger UI from jsDelivr, pinned by hash) with the CDN out
    /// of reach: before, a blank page and no word of why.
    @Test func withTheCDNOutOfReachThePageSaysWhatToDo() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-docs-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                  "MIGRATE_ON_START": "false"], directory: directory)
        let port = try await server.waitUntilListening()
        let browser = try await ExternalCommand.run(
            ["python3", TestDatabase.packageRoot.appendingPathComponent("Tests/e2e/docs_in_browser.py").path, "http://127.0.0.1:\(port)", "",
             "--cdn-blocked"], timeoutSeconds: 120)
        #expect(browser.code == 0 && browser.output.hasSuffix("ok\n"), "\(browser.output)")
        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
