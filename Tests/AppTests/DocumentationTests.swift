@testable import App
import Domain
import Foundation
import HTTPServer
@testable import Server
import TestSupport
import Testing

/// The written contract stays in step with the code.
@Suite struct DocumentationTests {
    @Test func openAPIDescribesExactlyTheRoutesTheServerMounts() throws {
        let text = try String(contentsOf: TestDatabase.packageRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        var documented = Set<String>()
        var path: String?
        // Blank lines (paragraphs inside a description) end nothing.
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if !line.hasPrefix("   "), !line.hasPrefix("  /") {
                path = line.hasPrefix("  ") ? path : nil
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
               ["get:", "post:", "put:", "patch:", "delete:"].contains(trimmed) {
                documented.insert("\(trimmed.dropLast().uppercased()) \(path)")
            }
        }
        var dependencies = Application.Dependencies.live(pool: unusedPool, auth: testAuth, logger: LogCapture().logger)
        dependencies.supabase = SupabaseSettings(anonKey: TestApp.anonKey)
        let contract = try String(contentsOf: TestDatabase.packageRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let assets = FileManager.default.temporaryDirectory.appendingPathComponent("assets-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: assets) }
        for name in ["swagger-ui.css", "swagger-ui-bundle.js"] { try Data().write(to: assets.appendingPathComponent(name)) }
        let routes = Application.makeResponder(dependencies: dependencies, auth: testAuth, cors: CORSPolicy(allowedOrigins: []),
                                               logger: LogCapture().logger,
                                               docs: try DocsController(contract: contract, assets: .directory(assets.path))).routes
        let mounted = Set(routes.map { "\($0.method) \($0.pattern)" })

        #expect(documented == mounted)
    }

    /// The tables of environment variables are generated from the one declaration that also
    /// parses them and prints `--help`: docs/configuration.md lists every one, the README
    /// the essentials, each exactly as ``Configuration/markdownTable(_:)`` writes it.
    @Test func theConfigurationTablesAreTheDeclarationItself() throws {
        let root = TestDatabase.packageRoot
        let page = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let full = Configuration.markdownTable()
        #expect(page.contains(full), "docs/configuration.md's table differs from Configuration.variables; it should read:\n\(full)")
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let essentials = Configuration.markdownTable(Configuration.essentials.compactMap { name in Configuration.variables.first { $0.name == name } })
        #expect(Configuration.essentials.count == 14)
        #expect(readme.contains(essentials), "README's configuration table differs; it should read:\n\(essentials)")
        // Every variable the help prints is in the table, and the other way round.
        #expect(CommandLineInterface.variableTable.split(separator: "\n").count == Configuration.variables.count)
    }

    /// The README is a front page: short, and every page it links to exists.
    @Test func theReadmeIsAFrontPageWhoseLinksResolve() throws {
        let root = TestDatabase.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
        let links = readme.matches(of: /\]\(([^)#]+)\)/).map { String($0.1) }.filter { !$0.hasPrefix("http") }
        #expect(links.count >= 10)
        for link in links {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(link).path), "\(link)")
        }
    }
}
