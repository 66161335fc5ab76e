import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// The ingest door as an attacker who controls what the pipeline reads (captions are
/// written by strangers and read by a model) would use it: nothing it sends can change a
/// member's post, break the feed's date bounds, or lose the other rows of a call.
@Suite struct IngestAttackTests {
    private static let json = [("Content-Type", "application/json")]

    private func key(_ app: TestApp) async throws -> String {
        let text = ServiceKeyText.prefix(.ingest) + Base64URL.encode(CryptoPrimitives.randomBytes(32))
        _ = try await PostgresServiceKeyRepository(pool: app.database.pool).create(name: "n8n", scope: .ingest, text: text)
        return text
    }

    private func ingest(_ app: TestApp, _ path: String, _ rows: [[String: any Sendable]], key: String) async throws -> TestResponse {
        try await app.send("POST", path, body: try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys]), token: key, headers: Self.json)
    }

    private func outcomes(_ response: TestResponse) -> [String] {
        (response.json["results"] as? [[String: any Sendable]] ?? []).compactMap { $0["outcome"] as? String }
    }

    private func reasons(_ response: TestResponse) -> [String] {
        (response.json["results"] as? [[String: any Sendable]] ?? []).map { $0["reason"] as? String ?? "" }
    }

    private func text(_ app: TestApp, _ sql: SQL) async throws -> String {
        try await app.database.pool.withConnection { try $0.query(sql).first!.decode(0, as: String.self) }
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    private static let influencer: [String: any Sendable] = [
        "username": "beauty.kim", "full_name": "뷰티킴", "followers_count": 52_000, "external_url": "https://link.example/kim"]

    @Test func aMembersPostIsNeverRewrittenByIngestAndTheRowSaysWhy() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            #expect(try await ingest(app, "/v1/ingest/influencers", [Self.influencer], key: key).json["created"] as? Int == 1)
            let influencer = Int(try await text(app, "SELECT id::text FROM influencers WHERE username = 'beauty.kim'"))!
            let (_, member) = try await app.user()
            let start = app.clock.now.addingTimeInterval(86_400), end = start.addingTimeInterval(7 * 86_400)
            let created = try await app.send("POST", "/v1/posts", json: [
                "influencer_id": influencer, "product_name": "수분 크림", "category": "beauty", "price": 31_000,
                "group_buying_start": Self.iso(start), "group_buying_end": Self.iso(end),
                "group_buying_url": "https://shop.example/real", "display_url": "https://img.example/real.jpg"], token: member)
            try #require(created.status == 201, "\(created.text)")
            let before = try await text(app, "SELECT row(p.*)::text FROM posts p")

            let attack = try await ingest(app, "/v1/ingest/posts", [
                ["influencer_username": "beauty.kim", "product_name": "수분 크림", "category": "beauty", "price": 1,
                 "group_buying_start": Self.iso(start), "group_buying_end": Self.iso(end),
                 "group_buying_url": "https://evil.example/buy", "display_url": "https://evil.example/x.jpg", "instagram_post_id": "1"],
                ["influencer_username": "beauty.kim", "product_name": "토너", "category": "beauty",
                 "group_buying_start": Self.iso(start), "group_buying_end": Self.iso(end)],
            ], key: key)
            #expect(attack.status == 200 && outcomes(attack) == ["conflict", "created"], "\(attack.text)")
            #expect(attack.json["conflict"] as? Int == 1, "\(attack.text)")
            #expect(reasons(attack)[0].contains("member"), "\(attack.text)")
            #expect(try await text(app, "SELECT row(p.*)::text FROM posts p WHERE product_name = '수분 크림'") == before, "the member's post is untouched")
            #expect(try await text(app, "SELECT string_agg(source, ',' ORDER BY id) FROM posts") == "app,ingest")
        }
    }

    @Test func ingestRowsFollowThePostRulesOfTheAPIAndTheDateBoundsStay() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            _ = try await ingest(app, "/v1/ingest/influencers", [Self.influencer], key: key)
            let now = app.clock.now
            let start = now.addingTimeInterval(86_400)
            func row(_ name: String, start: Date, end: Date, postedAt: Date?) -> [String: any Sendable] {
                var row: [String: any Sendable] = ["influencer_username": "beauty.kim", "product_name": name, "category": "beauty",
                                                   "group_buying_start": Self.iso(start), "group_buying_end": Self.iso(end)]
                if let postedAt { row["posted_at"] = Self.iso(postedAt) }
                return row
            }
            let year9999 = Date(timeIntervalSince1970: 253_402_200_000)
            let year1900 = Date(timeIntervalSince1970: -2_208_988_800)
            let good = try await ingest(app, "/v1/ingest/posts", [row("정상", start: start, end: start.addingTimeInterval(86_400), postedAt: now)], key: key)
            #expect(outcomes(good) == ["created"], "\(good.text)")
            let bounds: SQL = "SELECT row(b.*)::text FROM post_window_bounds b"
            let before = try await text(app, bounds)

            let attack = try await ingest(app, "/v1/ingest/posts", [
                row("9999년 공구", start: year9999, end: year9999.addingTimeInterval(86_400), postedAt: nil),
                row("미래 게시물", start: year9999, end: year9999.addingTimeInterval(86_400), postedAt: year9999),
                row("1900년 게시물", start: year1900, end: year1900.addingTimeInterval(86_400), postedAt: year1900),
                row("한 시간 뒤 게시물", start: start, end: start.addingTimeInterval(86_400), postedAt: now.addingTimeInterval(7_200)),
            ], key: key)
            #expect(outcomes(attack) == ["rejected", "rejected", "rejected", "rejected"], "\(attack.text)")
            #expect(reasons(attack)[0].hasPrefix("group_buying_start:"), "\(attack.text)")
            #expect(reasons(attack)[1].hasPrefix("posted_at:") && reasons(attack)[2].hasPrefix("posted_at:") && reasons(attack)[3].hasPrefix("posted_at:"),
                    "\(attack.text)")
            #expect(try await text(app, bounds) == before)
            #expect(try await text(app, "SELECT count(*)::text FROM posts") == "1")
        }
    }

    @Test func controlCharactersRefuseTheirRowOnlyInEveryTextField() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            var influencers: [[String: any Sendable]] = [Self.influencer]
            for field in ["username", "full_name", "biography", "external_url", "profile_pic_url", "category"] {
                var row = Self.influencer
                row["username"] = "nul.\(field)"
                row[field] = (row[field] as? String ?? "x") + "\u{0}"
                influencers.append(row)
            }
            var bell = Self.influencer
            bell["username"] = "bell.name"
            bell["full_name"] = "뷰티\u{7}킴"
            influencers.append(bell)
            var lines = Self.influencer
            lines["username"] = "lines.bio"
            lines["biography"] = "첫 줄\n둘째 줄\t끝"
            influencers.append(lines)
            let answer = try await ingest(app, "/v1/ingest/influencers", influencers, key: key)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(outcomes(answer) == ["created"] + Array(repeating: "rejected", count: 7) + ["created"], "\(answer.text)")
            for (index, field) in ["username", "full_name", "biography", "external_url", "profile_pic_url", "category", "full_name"].enumerated() {
                #expect(reasons(answer)[index + 1].hasPrefix("\(field):"), "\(field): \(answer.text)")
            }

            let start = app.clock.now.addingTimeInterval(86_400)
            let post: [String: any Sendable] = ["influencer_username": "beauty.kim", "product_name": "크림", "category": "beauty",
                                                "group_buying_start": Self.iso(start), "group_buying_end": Self.iso(start.addingTimeInterval(86_400))]
            var rows: [[String: any Sendable]] = []
            for field in ["influencer_username", "product_name", "caption", "post_url", "display_url", "group_buying_url", "post_type", "instagram_post_id",
                          "hashtags", "group_buying_start"] {
                var row = post
                row["product_name"] = "크림 \(field)"
                row[field] = (row[field] as? String ?? (field.hasSuffix("url") ? "https://x.example/a" : "a")) + "\u{0}"
                rows.append(row)
            }
            rows.append(post)
            let posts = try await ingest(app, "/v1/ingest/posts", rows, key: key)
            #expect(posts.status == 200, "a NUL in one row was a 500 for the whole call: \(posts.text)")
            #expect(outcomes(posts) == Array(repeating: "rejected", count: 10) + ["created"], "\(posts.text)")
            #expect(try await text(app, "SELECT count(*)::text FROM posts") == "1")
        }
    }

    /// Found by schemathesis (seed 3333): an id holding a NUL byte reached the query as a
    /// C string cut short, an unterminated array literal, and answered 500.
    @Test func idsNoPostCanHaveAreSimplyNotKnown() async throws {
        try await withTestApp { app async throws in
            let key = try await key(app)
            let body = try JSONSerialization.data(withJSONObject: ["instagram_post_ids": ["abc\u{0}def", "quote\"d", "{", "3512345678901234567"]])
            let answer = try await app.send("POST", "/v1/ingest/posts/known", body: body, token: key, headers: Self.json)
            #expect(answer.status == 200 && answer.json["known"] as? [String] == [], "\(answer.text)")
        }
    }
}
