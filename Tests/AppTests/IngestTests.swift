import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// `/v1/ingest` against PostgreSQL: the door of the automation that fills the feed.
/// Before it, the n8n workflows wrote straight into the database and had no other way in.
@Suite struct IngestTests {
    /// A live ingest key stored in the app's database.
    private func key(_ app: TestApp, name: String = "n8n") async throws -> String {
        let text = ServiceKeyText.prefix(.ingest) + Base64URL.encode(CryptoPrimitives.randomBytes(32))
        _ = try await PostgresServiceKeyRepository(pool: app.database.pool).create(name: name, scope: .ingest, text: text)
        return text
    }

    private func rows(_ objects: [[String: any Sendable]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys])
    }

    private func results(_ response: TestResponse) -> [[String: any Sendable]] {
        response.json["results"] as? [[String: any Sendable]] ?? []
    }

    private func count(_ app: TestApp, _ sql: SQL) async throws -> Int {
        try await app.database.pool.withConnection { try $0.query(sql).first!.decode(0, as: Int.self) }
    }

    private static let json = [("Content-Type", "application/json")]

    @Test func keysOpenOnlyTheirDoorAndUserTokensDoNotOpenIt() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let (_, userToken) = try await app.user(role: "admin")
            let body = try rows([["username": "beauty.kim", "followers_count": 12_000]])

            #expect(try await app.send("POST", "/v1/ingest/influencers", body: body, token: key, headers: Self.json).status == 200)
            #expect(try await app.send("POST", "/v1/ingest/influencers", body: body, headers: Self.json + [("apikey", key)]).status == 200)
            for token in [userToken, "m09_ingest_" + String(repeating: "A", count: 43), key + "x"] {
                let refused = try await app.send("POST", "/v1/ingest/influencers", body: body, token: token, headers: Self.json)
                #expect(refused.status == 401 && refused.errorCode == "invalid_api_key", "\(refused.text)")
            }
            #expect(try await app.send("GET", "/v1/ingest/influencers").errorCode == "invalid_api_key")
            // The other way round: a service key is no user's token.
            let me = try await app.send("GET", "/v1/me", token: key)
            #expect(me.status == 401 && me.errorCode == "invalid_token")

            _ = try await PostgresServiceKeyRepository(pool: app.database.pool).revoke(nameOrID: "n8n", at: Date())
            #expect(try await app.send("POST", "/v1/ingest/influencers", body: body, token: key, headers: Self.json).errorCode == "invalid_api_key")
        }
    }

    @Test func rowsAreUpsertedByNaturalKeyEachAnsweredAndOneBadRowLosesNothing() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let influencers = try rows([
                ["username": "beauty.kim", "full_name": "뷰티킴", "followers_count": 52_000, "external_url": "https://link.example/kim",
                 "biography": NSNull()],
                ["username": "not a name"],
                ["username": "living.lee", "followers_count": 31_000, "external_url": "https://link.example/lee"],
                ["username": "too.many", "followers_count": 10_000_000_000_000_000],  // past the INTEGER column: was a 500 for the whole call
                ["username": "long.name", "full_name": String(repeating: "e\u{301}", count: 60)],  // 60 characters, 120 code points: the same
                // Valid rows of accounts the requests' rules refuse: skipped, as the original sync skipped them.
                ["username": "small.one", "followers_count": 9_999, "external_url": "https://link.example/small"],
                ["username": "private.one", "followers_count": 52_000, "external_url": "https://link.example/p", "is_private": true],
                ["username": "linkless.one", "followers_count": 52_000],
            ])
            let first = try await app.send("POST", "/v1/ingest/influencers", body: influencers, token: key, headers: Self.json)
            #expect(first.status == 200 && first.json["created"] as? Int == 2 && first.json["rejected"] as? Int == 3 && first.json["skipped"] as? Int == 3,
                    "\(first.text)")
            #expect(results(first).map { $0["outcome"] as? String } == ["created", "rejected", "created", "rejected", "rejected", "skipped", "skipped", "skipped"])
            #expect(results(first).suffix(3).map { $0["reason"] as? String } == ["insufficient_followers", "private_account", "no_external_url"])
            #expect(try await count(app, "SELECT count(*) FROM influencers") == 2)
            #expect(results(first)[1]["row"] as? Int == 2 && (results(first)[1]["reason"] as? String)?.hasPrefix("username:") == true)
            let again = try await app.send("POST", "/v1/ingest/influencers", body: influencers, token: key, headers: Self.json)
            #expect(again.json["unchanged"] as? Int == 2 && again.json["created"] as? Int == 0)

            // NDJSON, a bad row in the middle, an unknown influencer, a price the schema takes.
            let ndjson = """
                {"influencer_username":"beauty.kim","product_name":"수분 크림","price":2147483647,"category":"뷰티","group_buying_start":"2026-12-01T00:00:00+09:00","group_buying_end":"2026-12-08T23:59:59+09:00","instagram_post_id":"3512345678901234567","posted_at":"2026-11-30T10:00:00Z","hashtags":["공구","크림"]}
                {"influencer_username":"beauty.kim","product_name":"","category":"beauty","group_buying_start":"2026-12-01T00:00:00+09:00","group_buying_end":"2026-12-08T00:00:00+09:00"}
                {"influencer_username":"nobody.here","product_name":"텐트","category":"camping","group_buying_start":"2026-12-01T00:00:00+09:00","group_buying_end":"2026-12-08T00:00:00+09:00"}
                {"influencer_username":"living.lee","product_name":"수납함","category":"living","group_buying_start":"2026-12-02T00:00:00+09:00","group_buying_end":"2026-12-09T00:00:00+09:00","instagram_post_id":"3512345678901234999"}
                """
            let posts = try await app.send("POST", "/v1/ingest/posts", body: Data(ndjson.utf8), token: key,
                                           headers: [("Content-Type", "application/x-ndjson")])
            #expect(results(posts).map { $0["outcome"] as? String } == ["created", "rejected", "rejected", "created"], "\(posts.text)")
            #expect(results(posts)[2]["reason"] as? String == "influencer nobody.here does not exist")
            #expect(try await count(app, "SELECT count(*) FROM posts") == 2)
            #expect(try await count(app, "SELECT count(*) FROM posts WHERE price = 2147483647 AND posted_at = '2026-11-30T10:00:00Z'") == 1)
            let replay = try await app.send("POST", "/v1/ingest/posts", body: Data(ndjson.utf8), token: key,
                                            headers: [("Content-Type", "application/x-ndjson")])
            #expect(replay.json["unchanged"] as? Int == 2 && replay.json["created"] as? Int == 0, "\(replay.text)")

            // The extraction named the same Instagram post's product differently: that post
            // moves to the new name instead of becoming a second offer.
            let renamed = try rows([["influencer_username": "beauty.kim", "product_name": "수분 크림 세트", "category": "beauty",
                                     "group_buying_start": "2026-12-01T00:00:00+09:00", "group_buying_end": "2026-12-08T23:59:59+09:00",
                                     "instagram_post_id": "3512345678901234567"]])
            let moved = try await app.send("POST", "/v1/ingest/posts", body: renamed, token: key, headers: Self.json)
            #expect(moved.json["updated"] as? Int == 1, "\(moved.text)")
            #expect(try await count(app, "SELECT count(*) FROM posts WHERE instagram_post_id = '3512345678901234567'") == 1)
            #expect(try await count(app, "SELECT count(*) FROM posts WHERE product_name = '수분 크림 세트'") == 1)

            // One object is one row.
            let single = try await app.send("POST", "/v1/ingest/influencers", body: try JSONSerialization.data(withJSONObject: [
                "username": "one.row", "followers_count": 10_000, "external_url": "https://link.example/one"]), token: key, headers: Self.json)
            #expect(single.json["created"] as? Int == 1)
            let known = try await app.send("POST", "/v1/ingest/posts/known", json: [
                "instagram_post_ids": ["1", "3512345678901234999", "3512345678901234567", "3512345678901234999"]], token: key)
            #expect(known.json["known"] as? [String] == ["3512345678901234999", "3512345678901234567"], "\(known.text)")
        }
    }

    @Test func callsAreBoundedInRowsAndRatePerKey() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let tooMany = try rows((0...IngestSettings.maxRows).map { ["username": "u\($0)"] })
            let refused = try await app.send("POST", "/v1/ingest/influencers", body: tooMany, token: key, headers: Self.json)
            #expect(refused.status == 400 && refused.errorCode == "too_many_rows")
            #expect(try await count(app, "SELECT count(*) FROM influencers") == 0)
            let notRows = try await app.send("POST", "/v1/ingest/posts", body: Data("[1,".utf8), token: key, headers: Self.json)
            #expect(notRows.status == 400 && notRows.errorCode == "invalid_body")

            let fresh = try await self.key(app, name: "fresh")
            var dependencies = app.dependencies
            dependencies.ingest?.requestsPerMinute = 3
            let limited = Application.makeResponder(dependencies: dependencies, auth: app.auth, cors: CORSPolicy(allowedOrigins: []), logger: app.logs.logger)
            var statuses: [Int] = []
            var retryAfter: String?
            for _ in 0..<4 {
                var headers = HTTPHeaders([("Authorization", "Bearer \(fresh)")])
                headers.add("Content-Type", "application/json")
                let response = await limited.respond(to: HTTPRequest(method: "POST", path: "/v1/ingest/posts/known", headers: headers,
                                                                     body: Data(#"{"instagram_post_ids":[]}"#.utf8)))
                statuses.append(response.status)
                retryAfter = response.headers["Retry-After"]
            }
            #expect(statuses == [200, 200, 200, 429] && retryAfter != nil)
        }
    }

    @Test func theRequestQueueIsClaimedAndSettledByTheServersRules() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let (_, requester) = try await app.user()
            for name in ["big.one", "small.one", "flaky.one", "gone.one"] {
                #expect(try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": name], token: requester).status == 202)
            }
            // Requests are due from the database's now(); the test clock started before them.
            app.clock.advance(by: 600)
            let claim = try await app.send("POST", "/v1/ingest/influencer-requests/claim", json: ["limit": 10], token: key)
            let claimed = claim.json["data"] as? [[String: any Sendable]] ?? []
            #expect(Set(claimed.compactMap { $0["username"] as? String }) == ["big.one", "small.one", "flaky.one", "gone.one"], "\(claim.text)")
            let ids = Dictionary(uniqueKeysWithValues: claimed.compactMap { entry in
                (entry["username"] as? String).flatMap { name in (entry["id"] as? Int).map { (name, $0) } }
            })
            try #require(ids.count == 4)
            // Claimed requests are leased: a second claim finds none.
            #expect((try await app.send("POST", "/v1/ingest/influencer-requests/claim", token: key).json["data"] as? [Any])?.isEmpty == true)

            func report(_ name: String, _ body: [String: any Sendable]) async throws -> TestResponse {
                try await app.send("POST", "/v1/ingest/influencer-requests/\(ids[name]!)/outcome", json: body, token: key)
            }
            let profile: [String: any Sendable] = ["full_name": "빅원", "followers_count": 52_000, "external_url": "https://link.example/big",
                                                   "profile_pic_url": "", "biography": NSNull(), "is_private": false]
            let approved = try await report("big.one", ["result": "found", "profile": profile])
            #expect(approved.json["status"] as? String == "approved" && approved.json["influencer_id"] is Int, "\(approved.text)")
            #expect(try await count(app, "SELECT count(*) FROM influencers WHERE username = 'big.one' AND followers_count = 52000") == 1)
            // The server's rules decide, not the reporter.
            let small = try await report("small.one", ["result": "found", "profile": ["followers_count": 500, "external_url": "https://x.example"] as [String: any Sendable]])
            #expect(small.json["status"] as? String == "failed" && small.json["reason"] as? String == "insufficient_followers")
            let flaky = try await report("flaky.one", ["result": "lookup_failed"])
            #expect(flaky.json["status"] as? String == "processing")
            let gone = try await report("gone.one", ["result": "not_found"])
            #expect(gone.json["reason"] as? String == "account_not_found")
            // Reporting again changes nothing; unknown ids and results are refused.
            #expect(try await report("big.one", ["result": "not_found"]).json["status"] as? String == "approved")
            let missing = try await app.send("POST", "/v1/ingest/influencer-requests/999999/outcome", json: ["result": "not_found"], token: key)
            #expect(missing.status == 404 && missing.json["error"] as? String == "influencer_request_not_found", "\(missing.text)")
            #expect(try await report("gone.one", ["result": "maybe"]).errorCode == "invalid_body")
            // A count beyond the documented range is refused, not quietly clamped (schemathesis seed 429674941).
            let huge = try await report("gone.one", ["result": "found", "profile": ["followers_count": 3_000_000_000] as [String: any Sendable]])
            #expect(huge.errorCode == "invalid_body" && huge.json["field"] as? String == "profile.followers_count", "\(huge.text)")

            // The influencer list pages by username.
            let page = try await app.send("GET", "/v1/ingest/influencers?limit=1", token: key)
            #expect((page.json["data"] as? [[String: any Sendable]])?.first?["username"] as? String == "big.one" && page.json["next_after"] as? String == "big.one")
            let next = try await app.send("GET", "/v1/ingest/influencers?limit=1&after=big.one", token: key)
            #expect((next.json["data"] as? [Any])?.isEmpty == true && next.json["next_after"] is NSNull)
        }
    }

    @Test func picturesAreStoredByContentAndAnythingElseIsRefused() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 3, 8, 6, 0, 0, 0])
                + Data(repeating: 7, count: 200)
            let stored = try await app.send("POST", "/v1/ingest/media", body: png, token: key, headers: [("Content-Type", "image/png")])
            #expect(stored.status == 201 && stored.json["content_type"] as? String == "image/png" && stored.json["width"] as? Int == 2, "\(stored.text)")
            let url = try #require(stored.json["url"] as? String)
            #expect(url.hasPrefix("http://127.0.0.1/media/") && url.hasSuffix(".png"))
            let again = try await app.send("POST", "/v1/ingest/media", body: png, token: key)
            #expect(again.json["url"] as? String == url, "the same bytes, the same URL")
            let served = try await app.send("GET", String(url.dropFirst("http://127.0.0.1".count)))
            #expect(served.status == 200 && served.header("Content-Type") == "image/png")

            let zip = try await app.send("POST", "/v1/ingest/media", body: Data([0x50, 0x4B, 3, 4]) + Data(repeating: 0, count: 100), token: key)
            #expect(zip.status == 415 && zip.errorCode == "unsupported_media_type")
            #expect(try await app.send("POST", "/v1/ingest/media", body: Data(), token: key).errorCode == "missing_file")
            let (_, userToken) = try await app.user()
            #expect(try await app.send("POST", "/v1/ingest/media", body: png, token: userToken).errorCode == "invalid_api_key")

            // An influencer's picture stored here is a reference: pruning keeps it.
            let owner = try await app.send("POST", "/v1/ingest/influencers", body: try rows([[
                "username": "pic.owner", "profile_pic_url": url, "followers_count": 20_000, "external_url": "https://link.example/owner"]]), token: key,
                                           headers: Self.json)
            #expect(owner.json["created"] as? Int == 1, "\(owner.text)")
            app.clock.advance(by: 2 * Uploads.unreferencedLifetime)
            #expect(try await app.dependencies.media.prune(before: Date().addingTimeInterval(2 * Uploads.unreferencedLifetime)).isEmpty)
            #expect(try await app.send("GET", String(url.dropFirst("http://127.0.0.1".count))).status == 200)
        }
    }

    /// The original keyed influencers by Instagram's account id: a renamed account stays
    /// one influencer (its follows, its posts), the rename moving the username.
    @Test func aRenamedAccountKeepsItsInfluencerByItsInstagramID() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            func upsert(_ row: [String: any Sendable]) async throws -> TestResponse {
                var row = row
                row["followers_count"] = row["followers_count"] ?? 52_000
                row["external_url"] = row["external_url"] ?? "https://link.example/glow"
                return try await app.send("POST", "/v1/ingest/influencers", body: try rows([row]), token: key, headers: Self.json)
            }
            func influencers() async throws -> [String] {
                try await app.database.pool.withConnection { connection in
                    try connection.query("""
                        SELECT id || ' ' || username || ' ' || COALESCE(instagram_id, '-') || ' ' || COALESCE(external_url_title, '-')
                               || ' ' || (last_synced_at IS NOT NULL) FROM influencers ORDER BY id
                        """).map { try $0.decode(0, as: String.self) }
                }
            }
            #expect(try await upsert(["username": "glow.jiyoung", "instagram_id": "1234567890", "external_url_title": "공구 링크"]).json["created"] as? Int == 1)
            let id = try #require(try await influencers().first?.split(separator: " ").first)
            let renamed = try await upsert(["username": "glow.jiyoung.official", "instagram_id": "1234567890", "external_url_title": "공구 링크"])
            #expect(renamed.json["updated"] as? Int == 1, "\(renamed.text)")
            #expect(try await influencers() == ["\(id) glow.jiyoung.official 1234567890 공구 링크 true"])
            // Again: nothing changed but the time it was read.
            #expect(try await upsert(["username": "glow.jiyoung.official", "instagram_id": "1234567890", "external_url_title": "공구 링크"])
                .json["unchanged"] as? Int == 1)
            // A row without the id goes by username, and keeps the id.
            #expect(try await upsert(["username": "glow.jiyoung.official", "external_url_title": "새 링크"]).json["updated"] as? Int == 1)
            #expect(try await influencers() == ["\(id) glow.jiyoung.official 1234567890 새 링크 true"])
            // A row by name only (an import, an old request) is adopted by the first row with the id.
            #expect(try await upsert(["username": "plain.one"]).json["created"] as? Int == 1)
            #expect(try await upsert(["username": "plain.one", "instagram_id": "555"]).json["updated"] as? Int == 1)
            // The name now belongs to another account than the stored one: refused, said why.
            let moved = try await upsert(["username": "plain.one", "instagram_id": "777"])
            #expect(results(moved).first?["outcome"] as? String == "rejected", "\(moved.text)")
            #expect((results(moved).first?["reason"] as? String)?.contains("belongs to Instagram account 555") == true, "\(moved.text)")
            let bad = try await upsert(["username": "bad.id", "instagram_id": "12ab"])
            #expect((results(bad).first?["reason"] as? String)?.hasPrefix("instagram_id:") == true, "\(bad.text)")
            #expect(try await count(app, "SELECT count(*) FROM influencers") == 2)
        }
    }

    /// A request for an account's new name, looked up with the account's id: the approval
    /// finds the influencer by the id and renames it (one influencer, its follows kept).
    @Test func anApprovedRequestForARenamedAccountRenamesItsInfluencer() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let before = try await app.send("POST", "/v1/ingest/influencers", body: try rows([[
                "username": "old.name", "instagram_id": "9090", "followers_count": 30_000, "external_url": "https://link.example/o"]]),
                token: key, headers: Self.json)
            #expect(before.json["created"] as? Int == 1, "\(before.text)")
            let (_, requester) = try await app.user()
            let requested = try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": "new.name"], token: requester)
            #expect(requested.status == 202, "\(requested.text)")
            app.clock.advance(by: 600)
            let claimed = try #require((try await app.send("POST", "/v1/ingest/influencer-requests/claim", token: key).json["data"] as? [[String: any Sendable]])?.first)
            let approved = try await app.send("POST", "/v1/ingest/influencer-requests/\(claimed["id"] as? Int ?? 0)/outcome", json: [
                "result": "found", "profile": ["instagram_id": "9090", "followers_count": 31_000, "external_url": "https://link.example/n"] as [String: any Sendable]],
                token: key)
            #expect(approved.json["status"] as? String == "approved", "\(approved.text)")
            let names = try await app.database.pool.withConnection { connection in
                try connection.query("SELECT id || ' ' || username || ' ' || followers_count FROM influencers").map { try $0.decode(0, as: String.self) }
            }
            #expect(names.count == 1 && names.first?.hasSuffix(" new.name 31000") == true, "\(names)")
            #expect(names.first?.hasPrefix("\(approved.json["influencer_id"] as? Int ?? -1) ") == true)
        }
    }
}
