import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// Hiding a post moves it out of `posts` whole: showing it again brings back its likes
/// (counted again), its Supabase alias and its id; its owner still lists it; the ingest
/// door cannot bring it (or a hidden influencer's posts) back; an admin's API edit of
/// another member's post is in the audit log.
@Suite struct HiddenPostsTests {
    private let actor = AdminActor(userID: nil, name: "ops@console.test", channel: .console, address: "198.51.100.9")

    private func count(_ app: TestApp, _ sql: SQL) async throws -> Int {
        try await app.database.pool.withConnection { try $0.query(sql).single().decode(0, as: Int.self) }
    }

    @Test func aHiddenPostComesBackWithItsLikes() async throws {
        try await withTestApp { app async throws in
            let influencer = try await app.influencer("hide.kim")
            let (_, owner) = try await app.user()
            let created = try await app.send("POST", "/v1/posts", json: [
                "influencer_id": influencer, "product_name": "숨김 크림", "category": "beauty",
                "group_buying_start": "2026-12-01T00:00:00+09:00", "group_buying_end": "2026-12-31T00:00:00+09:00",
            ], token: owner)
            let id = try #require(created.json["id"] as? Int, "\(created.text)")
            let (_, liker) = try await app.user()
            let (_, other) = try await app.user()
            for token in [liker, other] { #expect(try await app.send("PUT", "/v1/posts/\(id)/like", token: token).status == 200) }
            try await app.database.pool.withConnection { try $0.execute("INSERT INTO supabase_post_ids (text_id, post_id) VALUES ('old-uuid', \(id))") }

            let store = PostgresConsoleStore(pool: app.database.pool)
            #expect(try await store.setHidden(posts: [PostID(rawValue: id)], hidden: true, by: actor) == 1)
            #expect(try await app.send("GET", "/v1/posts/\(id)", token: liker).status == 404)
            #expect(try await count(app, "SELECT count(*)::int FROM likes WHERE post_id = \(id)") == 0)
            #expect(try await store.post(id: PostID(rawValue: id))?.hiddenAt != nil)
            // Hiding twice changes nothing; a post that is not there is not counted.
            #expect(try await store.setHidden(posts: [PostID(rawValue: id), PostID(rawValue: 999_999)], hidden: true, by: actor) == 0)

            // Its submitter still has it, marked.
            let mine = try await app.send("GET", "/v1/me/posts", token: owner)
            let listed = (mine.json["data"] as? [[String: any Sendable]])?.first
            #expect(mine.json["total"] as? Int == 1 && listed?["id"] as? Int == id && listed?["hidden"] as? Bool == true, "\(mine.text)")
            #expect(try await store.setHidden(posts: [PostID(rawValue: id)], hidden: false, by: actor) == 1)
            let again = try await app.send("GET", "/v1/me/posts", token: owner)
            #expect((again.json["data"] as? [[String: any Sendable]])?.first?["hidden"] == nil, "\(again.text)")
            let back = try await app.send("GET", "/v1/posts/\(id)", token: liker)
            #expect(back.status == 200 && back.json["likes_count"] as? Int == 2 && back.json["is_liked"] as? Bool == true, "\(back.text)")
            #expect(try await count(app, "SELECT count(*)::int FROM supabase_post_ids WHERE post_id = \(id)") == 1)
            let actions = try await store.audit(AuditQuery()).map(\.action)
            #expect(actions == ["post.show", "post.hide"], "\(actions)")
        }
    }

    @Test func ingestNeverBringsBackWhatAnOperatorHid() async throws {
        try await withTestApp { app async throws in
            let text = ServiceKeyText.prefix(.ingest) + Base64URL.encode(CryptoPrimitives.randomBytes(32))
            _ = try await PostgresServiceKeyRepository(pool: app.database.pool).create(name: "n8n", scope: .ingest, text: text)
            let influencer = try await app.influencer("ingest.kim")
            let hiddenInfluencer = try await app.influencer("gone.kim")
            func row(_ username: String, _ product: String, _ instagram: String) -> [String: any Sendable] {
                ["influencer_username": username, "product_name": product, "category": "뷰티", "instagram_post_id": instagram,
                 "group_buying_start": "2026-12-01T00:00:00+09:00", "group_buying_end": "2026-12-08T23:59:59+09:00"]
            }
            func ingest(_ rows: [[String: any Sendable]]) async throws -> [String] {
                let body = try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys])
                let answer = try await app.send("POST", "/v1/ingest/posts", body: body, token: text, headers: [("Content-Type", "application/json")])
                return (answer.json["results"] as? [[String: any Sendable]] ?? []).compactMap { $0["outcome"] as? String }
            }
            #expect(try await ingest([row("ingest.kim", "크림", "3500000000000000001")]) == ["created"])
            let id = try await count(app, "SELECT id::int FROM posts WHERE influencer_id = \(influencer)")
            let store = PostgresConsoleStore(pool: app.database.pool)
            #expect(try await store.setHidden(posts: [PostID(rawValue: id)], hidden: true, by: actor) == 1)
            #expect(try await store.setHidden(influencer: InfluencerID(rawValue: hiddenInfluencer), hidden: true, by: actor))
            // The same key, the same Instagram post under another product name, and a hidden influencer's new post.
            let outcomes = try await ingest([row("ingest.kim", "크림", "3500000000000000001"), row("ingest.kim", "새 이름", "3500000000000000001"),
                                             row("gone.kim", "토너", "3500000000000000002")])
            #expect(outcomes == ["conflict", "conflict", "conflict"], "\(outcomes)")
            #expect(try await count(app, "SELECT count(*)::int FROM posts") == 0)
            // A hidden influencer is gone from the app's lists, and comes back when shown.
            #expect(try await app.send("GET", "/v1/influencers/\(hiddenInfluencer)", token: try await app.user().token).status == 404)
            #expect(try await store.setHidden(influencer: InfluencerID(rawValue: hiddenInfluencer), hidden: false, by: actor))
            #expect(try await app.send("GET", "/v1/influencers/\(hiddenInfluencer)", token: try await app.user().token).status == 200)
        }
    }

    @Test func anAdminsAPIEditOfAnotherMembersPostIsAudited() async throws {
        try await withTestApp { app async throws in
            let influencer = try await app.influencer("audit.kim")
            let (_, owner) = try await app.user()
            let (adminID, admin) = try await app.user(role: "admin")
            let created = try await app.send("POST", "/v1/posts", json: [
                "influencer_id": influencer, "product_name": "감사 크림", "price": 10_000, "category": "beauty",
                "group_buying_start": "2026-12-01T00:00:00+09:00", "group_buying_end": "2026-12-31T00:00:00+09:00",
            ], token: owner)
            let id = try #require(created.json["id"] as? Int)
            #expect(try await app.send("PATCH", "/v1/posts/\(id)", json: ["price": 9_000], token: owner).status == 200)
            #expect(try await app.send("PATCH", "/v1/posts/\(id)", json: ["price": 8_000], token: admin).status == 200)
            #expect(try await app.send("DELETE", "/v1/posts/\(id)", token: admin).status == 204)
            let entries = try await PostgresConsoleStore(pool: app.database.pool).audit(AuditQuery())
            // The owner's own edit is not an admin action; the admin's two are, with the address.
            #expect(entries.map(\.action) == ["post.delete", "post.edit"], "\(entries)")
            #expect(entries.allSatisfy { $0.channel == .api && $0.address == "203.0.113.7" && $0.actor.contains(adminID.uuidString.lowercased()) })
            #expect(entries.last?.before?.contains("9000") == true && entries.last?.after?.contains("8000") == true)
        }
    }
}
