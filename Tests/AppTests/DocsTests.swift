@testable import App
import Cryptography
import Foundation
import HTTPServer
import Persistence
import TestSupport
import Testing
import Workers

/// `/openapi.yaml`, `/openapi.json` and `/docs` serve one contract.
@Suite struct DocsTests {
    private var contract: String {
        get throws { try String(contentsOf: TestDatabase.packageRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8) }
    }

    /// PyYAML (the reference reader, from PyPI) and our reader agree on the whole file.
    @Test func theJSONContractIsTheYAMLAsPyYAMLReadsIt() async throws {
        let ours = JSONWriter.encode(try YAMLDocument.parse(try contract))
        let path = TestDatabase.packageRoot.appendingPathComponent("openapi.yaml").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pyyaml-\(UUID().uuidString).json").path
        defer { unlink(output) }
        let python = try ChildProcess(["/usr/bin/env", "python3", "-c",
                                       "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding='utf-8'))))", path],
                                      outputPath: output)
        let code = try await BlockingWork.run { python.waitForExit() }
        try #require(code == 0, "python3 with PyYAML (pip install pyyaml): \(python.output())")
        let theirs = try JSONSerialization.jsonObject(with: Data(python.output().utf8)) as? NSDictionary
        let mine = try JSONSerialization.jsonObject(with: ours) as? NSDictionary
        #expect(mine != nil && mine == theirs)
    }

    @Test func yamlOutsideTheSubsetIsRefusedNotMisread() throws {
        for text in ["a: &x 1\nb: *x", "flag: yes", "a: 'open", "a: >\n  folded", "a: 1\na: 2", "a:\n  - 1\n   - 2"] {
            #expect(throws: YAMLError.self, "\(text)") { try YAMLDocument.parse(text) }
        }
        let value = try YAMLDocument.parse("""
            # comment
            a: plain text # trailing
            b: '#/not/a/comment'
            c:
            - 1
            - { x: [1, 'y', "z"], w: -2.5 }
            d: |
              line one
                indented

            e: null
            """)
        #expect(value == .mapping([
            ("a", .string("plain text")), ("b", .string("#/not/a/comment")),
            ("c", .sequence([.int(1), .mapping([("x", .sequence([.int(1), .string("y"), .string("z")])), ("w", .double(-2.5))])])),
            ("d", .string("line one\n  indented\n")), ("e", .null),
        ]))
    }

    @Test func theContractThePageAndLocalAssetsAreServed() async throws {
        let assets = FileManager.default.temporaryDirectory.appendingPathComponent("swagger-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: assets) }
        try Data("body { color: red }".utf8).write(to: assets.appendingPathComponent("swagger-ui.css"))
        try Data(String(repeating: "window.x = 1;\n", count: 200).utf8).write(to: assets.appendingPathComponent("swagger-ui-bundle.js"))

        let pins = ["sha384-" + Data(repeating: 1, count: 48).base64EncodedString(), "sha384-" + Data(repeating: 2, count: 48).base64EncodedString()]
        let remote = try DocsController(contract: try contract, assets: .remote("https://cdn.example/ui/", integrity: pins))
        let local = try DocsController(contract: try contract, assets: .directory(assets.path))
        let remoteResponder = RoutingResponder(routes: remote.routes, cors: CORSPolicy(allowedOrigins: []), logger: LogCapture().logger)
        let responder = RoutingResponder(routes: local.routes, cors: CORSPolicy(allowedOrigins: []), logger: LogCapture().logger)
        func get(_ path: String, _ headers: [(String, String)] = [], from: RoutingResponder? = nil) async -> HTTPResponse {
            await (from ?? responder).respond(to: HTTPRequest(method: "GET", path: path, headers: HTTPHeaders(headers)))
        }

        let yaml = await get("/openapi.yaml")
        let text = try contract
        #expect(yaml.status == 200 && yaml.body == Data(text.utf8) && yaml.headers["Content-Type"] == "application/yaml; charset=utf-8")
        let json = await get("/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: json.body) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0" && (document["paths"] as? [String: Any])?["/v1/posts"] != nil)
        let tag = try #require(json.headers["ETag"])
        #expect(await get("/openapi.json", [("If-None-Match", tag)]).status == 304)
        let gzipped = await get("/openapi.json", [("Accept-Encoding", "gzip")])
        #expect(gzipped.headers["Content-Encoding"] == "gzip" && gzipped.body.count < json.body.count / 4 && gzipped.headers["ETag"] == "W/" + tag)

        // Third-party files are pinned by hash, and the policy runs nothing else.
        let remotePage = await get("/docs", from: remoteResponder)
        let page = String(decoding: remotePage.body, as: UTF8.self)
        #expect(page.contains(#"<script src="https://cdn.example/ui/swagger-ui-bundle.js" integrity="\#(pins[1])" crossorigin="anonymous"></script>"#))
        #expect(page.contains(#"<link rel="stylesheet" href="https://cdn.example/ui/swagger-ui.css" integrity="\#(pins[0])" crossorigin="anonymous">"#))
        #expect(page.contains(#"url: "/openapi.json""#) && page.contains(#"id="docs-unavailable" hidden"#))
        let policy = try #require(remotePage.headers["Content-Security-Policy"])
        #expect(policy.hasPrefix("default-src 'none'; script-src 'sha256-") && policy.contains("'\(pins[1])'")
                && policy.contains("style-src https://cdn.example;") && !policy.contains("unsafe"))
        let offlinePage = await get("/docs")
        let offline = String(decoding: offlinePage.body, as: UTF8.self)
        let bundleHash = "sha256-" + Data(SHA256.digest(Data(String(repeating: "window.x = 1;\n", count: 200).utf8))).base64EncodedString()
        #expect(offline.contains(#"href="/docs/assets/swagger-ui.css" integrity="sha256-"#) && offline.contains(#"integrity="\#(bundleHash)">"#))
        #expect(offlinePage.headers["Content-Security-Policy"]?.contains("style-src 'self';") == true)
        // The default is the pinned CDN; a CDN named without its files' hashes is refused.
        let pinned = try DocsController(contract: try contract, assets: .pinnedCDN)
        let pinnedPage = await RoutingResponder(routes: pinned.routes, cors: CORSPolicy(allowedOrigins: []), logger: LogCapture().logger)
            .respond(to: HTTPRequest(method: "GET", path: "/docs"))
        #expect(String(decoding: pinnedPage.body, as: UTF8.self).contains(
            #"src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5.17.14/swagger-ui-bundle.js" integrity="sha384-wmyclcVGX/WhUkdkATwhaK1X1JtiNrr2EoYJ+diV3vj4v6OC5yCeSu+yW13SYJep""#))
        #expect(throws: DocsError.self) { try DocsController(contract: try contract, assets: .remote("https://cdn.example/ui", integrity: [])) }
        let css = await get("/docs/assets/swagger-ui.css")
        #expect(css.status == 200 && css.body == Data("body { color: red }".utf8) && css.headers["Content-Type"] == "text/css; charset=utf-8")
        for path in ["/docs/assets/secret.txt", "/docs/assets/..%2Fopenapi.yaml", "/docs/assets/%2e%2e"] {
            #expect(await get(path).status == 404, "\(path)")
        }
        #expect(await get("/docs/assets/swagger-ui.css", from: remoteResponder).status == 404)
        #expect(throws: DocsError.self) { try DocsController(contract: try contract, assets: .directory("/nonexistent")) }
    }
}
