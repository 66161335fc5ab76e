import Cryptography
import Domain
import Foundation
import Persistence
import ProcessSupport
import TestSupport
import Testing
import Workers

/// The n8n workflows of `examples/n8n/` against a running server: their JSON is a workflow
/// n8n imports, and their HTTP calls, replayed by `Tests/e2e/n8n_replay.mjs` with the
/// scraper and the extraction model answering from a fixture, fill the feed through
/// `/v1/ingest` (before, they wrote into the database and had no other way in).
@Suite struct N8nWorkflowTests {
    private static let root = TestDatabase.packageRoot
    private static let workflows = ["process-influencer-requests.json", "sync-all-influencers.json"]

    @Test func theWorkflowsAreN8nWorkflowsThatCallOnlyTheServerAndTheirServices() throws {
        for name in Self.workflows {
            let data = try Data(contentsOf: Self.root.appendingPathComponent("examples/n8n/" + name))
            let workflow = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
            let nodes = try #require(workflow["nodes"] as? [[String: Any]])
            let names = Set(nodes.compactMap { $0["name"] as? String })
            #expect(names.count == nodes.count && Set(nodes.compactMap { $0["id"] as? String }).count == nodes.count, "\(name): names and ids are unique")
            for node in nodes {
                let type = node["type"] as? String ?? ""
                #expect(type.hasPrefix("n8n-nodes-base.") && type != "n8n-nodes-base.postgres", "\(name): \(type)")
                #expect(node["typeVersion"] is NSNumber && (node["position"] as? [Any])?.count == 2 && node["parameters"] is [String: Any])
                // Downloads (a file answer) fetch the pictures the scraper named; every other call
                // goes to the server or to the two services.
                let parameters = node["parameters"] as? [String: Any] ?? [:]
                let download = ((parameters["options"] as? [String: Any])?["response"] as? [String: Any]).map { "\($0)".contains("file") } ?? false
                if type == "n8n-nodes-base.httpRequest", !download, let url = parameters["url"] as? String {
                    #expect(url.hasPrefix("={{ $env.MARKET09_URL }}/v1/ingest/") || url.hasPrefix("https://api.apify.com/")
                            || url.hasPrefix("https://api.anthropic.com/"), "\(name): \(url)")
                }
            }
            let connections = try #require(workflow["connections"] as? [String: [String: [[[String: Any]]]]])
            for (source, outputs) in connections {
                #expect(names.contains(source), "\(name): \(source)")
                for target in outputs["main", default: []].joined() {
                    #expect(names.contains(target["node"] as? String ?? ""), "\(name): \(source) → \(target)")
                }
            }
        }
    }

    private func replay(_ workflow: String, port: Int, key: String) async throws -> [[String: Any]] {
        let result = try await ExternalCommand.run(
            ["node", Self.root.appendingPathComponent("Tests/e2e/n8n_replay.mjs").path,
             Self.root.appendingPathComponent("examples/n8n/" + workflow).path, Self.root.appendingPathComponent("Tests/e2e/n8n_fixture.json").path],
            environment: ProcessInfo.processInfo.environment.merging(["MARKET09_URL": "http://127.0.0.1:\(port)", "MARKET09_INGEST_KEY": key]) { $1 },
            timeoutSeconds: 120)
        #expect(result.code == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last, "\(result.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(result.output)")
        return report["calls"] as? [[String: Any]] ?? []
    }

    private func posts(_ database: TestDatabase) async throws -> String {
        try await database.pool.withConnection { connection in
            try connection.query("""
                SELECT count(*)::text || ':' || COALESCE(md5(string_agg(row(p.*)::text, '|' ORDER BY p.id)), '') FROM posts p
                """).first!.decode(0, as: String.self)
        }
    }

    @Test func aRequestedInfluencerAndTwelvePostsComeInAndTheNextSyncChangesNothing() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-n8n-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mediaDirectory = directory + "/media"
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                  "MEDIA_DIR": mediaDirectory, "MEDIA_BASE_URL": "https://api.09market.test"], directory: directory)
        let port = try await server.waitUntilListening()
        let key = ServiceKeyText.prefix(.ingest) + Base64URL.encode(CryptoPrimitives.randomBytes(32))
        _ = try await PostgresServiceKeyRepository(pool: database.pool).create(name: "n8n", scope: .ingest, text: key)

        // A user asks for the influencer, as the app does.
        let session = try await RawHTTPClient.request("POST", "/v1/auth/anonymous", port: port).jsonObject()
        let token = try #require(session["access_token"] as? String)
        let requested = try await RawHTTPClient.request("POST", "/v1/influencer-requests", port: port,
                                                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                        body: Data(#"{"instagram_username":"@glow.jiyoung"}"#.utf8))
        #expect(requested.status == 202)

        let first = try await replay("process-influencer-requests.json", port: port, key: key)
        let market09 = first.filter { $0["service"] as? String == "market09" }
        // Every call succeeds but one: post 12's picture is a zip named .jpg, refused.
        let refused = market09.filter { ![200, 201].contains($0["status"] as? Int ?? 0) }
        #expect(refused.count == 1 && refused.first?["status"] as? Int == 415 && refused.first?["path"] as? String == "/v1/ingest/media", "\(refused)")
        let outcome = try #require(market09.first { ($0["path"] as? String)?.hasSuffix("/outcome") == true }?["body"] as? [String: Any])
        #expect(outcome["status"] as? String == "approved")
        let ingested = try #require(market09.first { $0["path"] as? String == "/v1/ingest/posts" }?["body"] as? [String: Any])
        #expect(ingested["created"] as? Int == 12 && ingested["rejected"] as? Int == 0, "\(ingested)")
        #expect(first.count { $0["service"] as? String == "api.anthropic.com" } == 12)
        let before = try await posts(database)
        #expect(before.hasPrefix("12:"))
        // The pictures are served from here now (Instagram's URLs expire), but the refused one.
        let pictures = try await database.pool.withConnection { connection in
            try connection.query("SELECT display_url FROM posts UNION ALL SELECT profile_pic_url FROM influencers").map { try $0.decode(0, as: String.self) }
        }
        let stored = pictures.filter { $0.hasPrefix("https://api.09market.test/media/") }
        #expect(stored.count == 12 && pictures.filter { $0.contains("cdninstagram.com") }.count == 1, "\(pictures)")
        for url in stored {
            let served = try await RawHTTPClient.request("GET", String(url.dropFirst("https://api.09market.test".count)), port: port)
            #expect(served.status == 200 && served.header("Content-Type") == "image/png", "\(url)")
        }
        // Referenced, so the pruning job keeps them even past the day an unused upload lasts.
        let library = FileMediaLibrary(directory: mediaDirectory, pool: database.pool, workers: BoundedWorkers(name: "t", threads: 1, queueLimit: 4),
                                       readers: BoundedWorkers(name: "r", threads: 1, queueLimit: 4))
        #expect(try await library.prune(before: Date().addingTimeInterval(86_400)).isEmpty)

        // The next run: the profile is the same, all 12 posts are known, nothing is extracted or written.
        let second = try await replay("sync-all-influencers.json", port: port, key: key)
        let calls = second.filter { $0["service"] as? String == "market09" }
        // The profile picture is copied again: the same bytes, the same URL, no change.
        #expect(calls.compactMap { $0["path"] as? String } == ["/v1/ingest/influencers", "/v1/ingest/media", "/v1/ingest/influencers", "/v1/ingest/posts/known"],
                "\(calls)")
        try #require(calls.count == 4)
        #expect((calls[2]["body"] as? [String: Any])?["unchanged"] as? Int == 1, "\(calls[2])")
        #expect(((calls[3]["body"] as? [String: Any])?["known"] as? [String])?.count == 12)
        #expect(second.count { $0["service"] as? String == "api.anthropic.com" } == 0)
        #expect(try await posts(database) == before)
        let influencer = try await database.pool.withConnection { connection in
            try connection.query("SELECT full_name || ' ' || followers_count FROM influencers WHERE username = 'glow.jiyoung'").first!.decode(0, as: String.self)
        }
        #expect(influencer == "지영 | 살림·뷰티 공구 52340")
        #expect(second.count { ($0["service"] as? String ?? "").contains("cdninstagram") } == 1, "only the profile picture is fetched again")

        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
