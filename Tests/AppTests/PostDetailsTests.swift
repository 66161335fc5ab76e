import Fakes
import Foundation
import TestSupport
import Testing

/// Post URL, caption, hashtags and type: written, validated, read, and a hashtag's list.
@Suite struct PostDetailsTests {
    private func newPost(_ influencer: Int, name: String, hashtags: [String] = ["#크림", "Skincare", "#skincare"]) -> [String: any Sendable] {
        ["influencer_id": influencer, "product_name": name, "price": 19_900, "category": "beauty",
         "group_buying_start": "2026-12-01T10:00:00+09:00", "group_buying_end": "2026-12-05T23:59:00+09:00",
         "post_url": "https://www.instagram.com/p/C0abc/", "caption": "겨울 수분 크림 공구\n#크림 #skincare", "hashtags": hashtags,
         "post_type": "Sidecar"]
    }

    @Test func detailsAreWrittenNormalisedAndReadWithTheCaptionOnSinglePostsOnly() async throws {
        try await withTestApp(clock: TestClock(start: Date(timeIntervalSince1970: 1_796_000_000))) { app async throws in
            let influencer = try await app.influencer("details.kim")
            let (_, token) = try await app.user()
            let created = try await app.send("POST", "/v1/posts", json: newPost(influencer, name: "수분 크림"), token: token)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.json["hashtags"] as? [String] == ["크림", "skincare"])
            #expect(created.json["post_url"] as? String == "https://www.instagram.com/p/C0abc/")
            #expect(created.json["post_type"] as? String == "Sidecar")
            #expect(created.json["caption"] as? String == "겨울 수분 크림 공구\n#크림 #skincare")
            let id = try #require(created.json["id"] as? Int)
            #expect(try await app.send("GET", "/v1/posts/\(id)", token: token).json["caption"] as? String == "겨울 수분 크림 공구\n#크림 #skincare")

            let list = try await app.send("GET", "/v1/posts?sort=latest", token: token)
            let first = try #require((list.json["data"] as? [[String: any Sendable]])?.first)
            #expect(first["hashtags"] as? [String] == ["크림", "skincare"] && first["caption"] == nil)

            let edited = try await app.send("PATCH", "/v1/posts/\(id)", json: ["hashtags": ["#겨울"], "caption": ""], token: token)
            #expect(edited.json["hashtags"] as? [String] == ["겨울"] && edited.json["caption"] as? String == "")
            #expect(try await app.send("PATCH", "/v1/posts/\(id)", json: ["price": 100], token: token).json["hashtags"] as? [String] == ["겨울"])
        }
    }

    @Test func badDetailsAnswer400NamingTheField() async throws {
        try await withTestApp(clock: TestClock(start: Date(timeIntervalSince1970: 1_796_000_000))) { app async throws in
            let influencer = try await app.influencer("details.bad")
            let (_, token) = try await app.user()
            let cases: [(String, any Sendable, String)] = [
                ("hashtags", ["a b"], "hashtags"), ("hashtags", ["#"], "hashtags"), ("hashtags", (0..<31).map { "t\($0)" }, "hashtags"),
                ("hashtags", [String(repeating: "가", count: 101)], "hashtags"), ("caption", String(repeating: "a", count: 2201), "caption"),
                ("caption", "a\u{0}b", "caption"), ("post_type", "Reel!", "post_type"), ("post_url", "ftp://x.example/p", "post_url"),
            ]
            for (field, value, expected) in cases {
                var body = newPost(influencer, name: "bad \(field)")
                body[field] = value
                let response = try await app.send("POST", "/v1/posts", json: body, token: token)
                #expect(response.status == 400 && response.json["field"] as? String == expected, "\(field): \(response.text)")
            }
            // 30 distinct tags after folding duplicates are fine.
            let many = (0..<30).map { "t\($0)" } + ["#T0", "t1"]
            #expect(try await app.send("POST", "/v1/posts", json: newPost(influencer, name: "many", hashtags: many), token: token).status == 201)
        }
    }

    @Test func aHashtagsListIsNewestFirstWithAnExactTotalAndFollowsEdits() async throws {
        try await withTestApp { app async throws in
            let influencer = try await app.influencer("tags.kim")
            let (_, token) = try await app.user()
            var collected: [Int] = []
            for day in 1...5 {
                collected.append(try await app.post(influencer: influencer, name: "tagged \(day)", start: "2026-12-01T00:00:00Z", end: "2026-12-09T00:00:00Z",
                                              postedAt: "2026-11-0\(day)T00:00:00Z"))
            }
            let ids = collected
            _ = try await app.post(influencer: influencer, name: "untagged", start: "2026-12-01T00:00:00Z", end: "2026-12-09T00:00:00Z")
            try await app.database.pool.withConnection { connection in
                try connection.execute("UPDATE posts SET hashtags = '{크림,겨울}' WHERE id = ANY(\("{" + ids.map(String.init).joined(separator: ",") + "}")::bigint[])")
            }
            let page = try await app.send("GET", "/v1/posts?hashtag=%23%ED%81%AC%EB%A6%BC&limit=2&page=2", token: token)  // #크림
            #expect(page.status == 200, "\(page.text)")
            #expect((page.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } == [ids[2], ids[1]])
            #expect(page.json["total"] as? Int == 5 && page.json["total_exact"] as? Bool == true && page.json["has_next"] as? Bool == true)
            #expect(try await app.send("GET", "/v1/posts?hashtag=%EA%B2%A8%EC%9A%B8&sort=latest", token: token).json["total"] as? Int == 5)

            try await app.database.pool.withConnection { connection in
                try connection.execute("DELETE FROM posts WHERE id = \(ids[4])")
                try connection.execute("UPDATE posts SET hashtags = '{겨울}' WHERE id = \(ids[3])")
            }
            let after = try await app.send("GET", "/v1/posts?hashtag=크림", token: token)
            #expect((after.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } == [ids[2], ids[1], ids[0]])
            #expect(after.json["total"] as? Int == 3 && after.json["has_next"] as? Bool == false)
            #expect(try await app.send("GET", "/v1/posts?hashtag=없는태그", token: token).json["total"] as? Int == 0)

            for (query, field) in [("hashtag=a&search=b", "search"), ("hashtag=a&category=beauty", "category"), ("hashtag=a&status=closed", "status"),
                                   ("hashtag=a&sort=popular", "sort"), ("hashtag=a&date_from=2026-12-01&date_to=2026-12-02", "date_from"),
                                   ("hashtag=a%20b", "hashtag"), ("hashtag=%23", "hashtag")] {
                let response = try await app.send("GET", "/v1/posts?\(query)", token: token)
                #expect(response.status == 400 && response.json["field"] as? String == field, "\(query): \(response.text)")
            }
        }
    }
}
