import Cryptography
import Domain
import Foundation
import Persistence
import ProcessSupport
import TestSupport
import Testing
import Workers

/// The n8n workflows of `examples/n8n/` against a running server: every node holds what
/// n8n's definition of its type declares (`Tests/e2e/n8n_nodes.mjs`), and their HTTP calls,
/// replayed by `Tests/e2e/n8n_replay.mjs` as strictly as n8n runs them (its IF type rules,
/// $env refused, batches, retries) with the scraper and the extraction model answering
/// from a fixture, fill the feed through `/v1/ingest`.
@Suite struct N8nWorkflowTests {
    private static let root = TestDatabase.packageRoot
    private static let workflows = ["process-influencer-requests.json", "sync-all-influencers.json"]

    @Test func theWorkflowsAreN8nWorkflowsThatCallOnlyTheServerAndTheirServices() throws {
        for name in Self.workflows {
            let data = try Data(contentsOf: Self.root.appendingPathComponent("examples/n8n/" + name))
            let text = String(decoding: data, as: UTF8.self)
            // n8n 2.x refuses $env in nodes by default; keys travel as credentials, not in the JSON.
            #expect(!text.contains("$env") && !text.contains("token=") && !text.contains("YOUR_"), "\(name)")
            let workflow = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
            let nodes = try #require(workflow["nodes"] as? [[String: Any]])
            for node in nodes {
                let type = node["type"] as? String ?? ""
                #expect(type.hasPrefix("n8n-nodes-base.") && type != "n8n-nodes-base.postgres", "\(name): \(type)")
                // Downloads (a file answer) fetch the pictures the scraper named; every other call
                // goes to the server (its URL set once, in Settings) or to the two services.
                let parameters = node["parameters"] as? [String: Any] ?? [:]
                let download = ((parameters["options"] as? [String: Any])?["response"] as? [String: Any]).map { "\($0)".contains("file") } ?? false
                if type == "n8n-nodes-base.httpRequest", !download, let url = parameters["url"] as? String {
                    #expect(url.hasPrefix("={{ $('Settings').first().json.market09_url }}/v1/ingest/") || url.hasPrefix("https://api.apify.com/")
                            || url.hasPrefix("https://api.anthropic.com/"), "\(name): \(url)")
                    #expect(parameters["authentication"] as? String == "genericCredentialType", "\(name): \(node["name"] ?? "") sends its key as a credential")
                }
            }
        }
    }

    /// The replay checks every node against what n8n's definitions declare: each mistake
    /// the shipped workflows once had is refused with n8n's own words.
    @Test func theReplayRefusesWhatN8nRefuses() async throws {
        let directory = "/tmp/m09-n8n-check-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try Data(contentsOf: Self.root.appendingPathComponent("examples/n8n/sync-all-influencers.json"))
        let shipped = String(decoding: data, as: UTF8.self)
        let mistakes: [(String, (String) -> String, String)] = [
            ("a boolean IF without singleValue", { $0.replacingOccurrences(of: "\"singleValue\": true", with: "\"singleValue\": false") },
             "Wrong type: '' is a string but was expecting a boolean"),
            ("pagination parameters as a bare list", { text in
                text.replacingOccurrences(of: #""parameters": \{\s*"parameters": (\[[^\]]*\])\s*\}"#, with: #""parameters": $1"#, options: .regularExpression)
            }, "parameters.options.pagination.pagination.parameters: must be an object"),
            ("an option n8n does not have", { $0.replacingOccurrences(of: "\"timeout\": 60000", with: "\"timeOut\": 60000") },
             "options.timeOut: is not a parameter of this node"),
            ("a credential of another kind", { text in
                text.replacingOccurrences(of: #""httpHeaderAuth": (\{\s*"id": "apify-api-token")"#, with: #""httpBasicAuth": $1"#, options: .regularExpression)
            }, "needs a httpHeaderAuth credential"),
            ("retries past n8n's bounds", { $0.replacingOccurrences(of: "\"waitBetweenTries\": 5000", with: "\"waitBetweenTries\": 60000") },
             "waitBetweenTries must be from 0 to 5000 ms"),
        ]
        for (name, mutate, message) in mistakes {
            let broken = mutate(shipped)
            #expect(broken != shipped, "\(name): the mutation found nothing to change")
            let path = directory + "/broken.json"
            try Data(broken.utf8).write(to: URL(fileURLWithPath: path))
            let result = try await ExternalCommand.run(["node", Self.root.appendingPathComponent("Tests/e2e/n8n_replay.mjs").path, "--check", path],
                                                       timeoutSeconds: 30)
            #expect(result.code == 3 && result.output.contains(message), "\(name): \(result.output)")
        }
        let shippedCheck = try await ExternalCommand.run(["node", Self.root.appendingPathComponent("Tests/e2e/n8n_replay.mjs").path, "--check",
                                                          Self.root.appendingPathComponent("examples/n8n/sync-all-influencers.json").path], timeoutSeconds: 30)
        #expect(shippedCheck.code == 0, "\(shippedCheck.output)")

        // $env is refused at run time, as n8n 2.x does by default.
        let withEnv = shipped.replacingOccurrences(of: "={{ $('Settings').first().json.market09_url }}/v1/ingest/influencers\"",
                                                   with: "={{ $env.MARKET09_URL }}/v1/ingest/influencers\"")
        let path = directory + "/env.json"
        try Data(withEnv.utf8).write(to: URL(fileURLWithPath: path))
        let refused = try await ExternalCommand.run(["node", Self.root.appendingPathComponent("Tests/e2e/n8n_replay.mjs").path, path,
                                                     Self.root.appendingPathComponent("Tests/e2e/n8n_fixture.json").path],
                                                    environment: ProcessInfo.processInfo.environment.merging(["MARKET09_URL": "http://127.0.0.1:9"]) { $1 },
                                                    timeoutSeconds: 30)
        #expect(refused.code == 4 && refused.output.contains("access to env vars denied"), "\(refused.output)")
    }

    /// Waits (the model's 2 s between calls, 5 s before a retry) run at a twentieth.
    private static let timeScale = 0.05

    private func replay(_ workflow: String, port: Int, key: String) async throws -> [[String: Any]] {
        let result = try await ExternalCommand.run(
            ["node", Self.root.appendingPathComponent("Tests/e2e/n8n_replay.mjs").path,
             Self.root.appendingPathComponent("examples/n8n/" + workflow).path, Self.root.appendingPathComponent("Tests/e2e/n8n_fixture.json").path],
            environment: ProcessInfo.processInfo.environment.merging(["MARKET09_URL": "http://127.0.0.1:\(port)", "MARKET09_INGEST_KEY": key,
                                                                      "REPLAY_TIME_SCALE": String(Self.timeScale)]) { $1 },
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
        // The model is asked one post at a time, 2 s apart; its rate limit on the third call
        // fails the node after all twelve were sent, and n8n runs the node again 5 s later.
        let model = first.filter { $0["service"] as? String == "api.anthropic.com" }
        #expect(model.count == 24 && model.filter { $0["status"] as? Int == 429 }.count == 1, "\(model)")
        let retry = try #require(first.first { $0["retry"] as? String == "Extract Offer (Claude)" }, "\(first)")
        let times = model.compactMap { $0["at"] as? Int }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.enumerated().allSatisfy { index, gap in index == 11 || Double(gap) >= 2_000 * Self.timeScale * 0.9 }, "\(gaps)")
        #expect(Double(times[12] - (retry["at"] as? Int ?? 0)) >= 5_000 * Self.timeScale * 0.9, "the retry waits: \(times[12]) after \(retry)")
        // The account's id and link title came with the profile.
        let kept = try await database.pool.withConnection { connection in
            try connection.query("SELECT instagram_id || ' ' || external_url_title FROM influencers WHERE username = 'glow.jiyoung'")
                .single().decode(0, as: String.self)
        }
        #expect(kept == "48123456789 공구 링크 모음")
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

        // An influencer that no longer qualifies (3,200 followers): the sync skips it, as the
        // original did, and changes nothing of it.
        try await database.pool.withConnection { connection in
            _ = try connection.execute("""
                INSERT INTO influencers (username, followers_count, external_url) VALUES ('tiny.shop', 15000, 'https://link.example/tiny')
                """)
        }

        // The next run: the profile is the same, all 12 posts are known, nothing is extracted or written.
        let second = try await replay("sync-all-influencers.json", port: port, key: key)
        let calls = second.filter { $0["service"] as? String == "market09" }
        // The profile picture is copied again: the same bytes, the same URL, no change.
        #expect(calls.compactMap { $0["path"] as? String } == ["/v1/ingest/influencers", "/v1/ingest/media", "/v1/ingest/influencers", "/v1/ingest/posts/known",
                                                               "/v1/ingest/influencers"],
                "\(calls)")
        try #require(calls.count == 5)
        #expect((calls[2]["body"] as? [String: Any])?["unchanged"] as? Int == 1, "\(calls[2])")
        #expect(((calls[3]["body"] as? [String: Any])?["known"] as? [String])?.count == 12)
        let tiny = try #require(((calls[4]["body"] as? [String: Any])?["results"] as? [[String: Any]])?.first)
        #expect(tiny["outcome"] as? String == "skipped" && tiny["reason"] as? String == "insufficient_followers", "\(calls[4])")
        #expect(try await database.pool.withConnection { try $0.query("SELECT followers_count FROM influencers WHERE username = 'tiny.shop'").single().decode(0, as: Int.self) }
                == 15000)
        #expect(second.count { $0["service"] as? String == "api.anthropic.com" } == 0)
        #expect(try await posts(database) == before)
        let influencer = try await database.pool.withConnection { connection in
            try connection.query("SELECT full_name || ' ' || followers_count FROM influencers WHERE username = 'glow.jiyoung'").first!.decode(0, as: String.self)
        }
        #expect(influencer == "지영 | 살림·뷰티 공구 52340")
        #expect(second.count { ($0["service"] as? String ?? "").contains("cdninstagram") } == 2, "only the profile pictures are fetched again")

        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
