@testable import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// GET answers carry a strong ETag of what this caller sees; sending it back answers 304.
@Suite struct EntityTagTests {
    @Test func unchangedAnswersAre304AndALikeChangesTheTag() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let influencer = try await app.influencer("etag.seller")
            let post: Int = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                    VALUES (\(influencer), '태그 상품', 'food', now() - interval '1 day', now() + interval '2 days') RETURNING id
                    """).first!.decode(0)
            }
            for path in ["/v1/posts", "/v1/posts/\(post)", "/v1/categories", "/v1/posts/top10", "/v1/influencers/\(influencer)/posts"] {
                let first = try await app.send("GET", path, token: token)
                let tag = try #require(first.header("ETag"), "\(path)")
                #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && first.header("Cache-Control") == "private, no-cache", "\(path)")
                let again = try await app.send("GET", path, token: token, headers: [("If-None-Match", "W/\"other\", \(tag)")])
                #expect(again.status == 304 && again.response.body.isEmpty && again.header("ETag") == tag, "\(path)")
                let stale = try await app.send("GET", path, token: token, headers: [("If-None-Match", "\"0000000000000000\"")])
                #expect(stale.status == 200 && stale.header("ETag") == tag, "\(path)")
            }

            // The viewer's own like is part of what they see: the tag moves with it.
            let before = try #require(try await app.send("GET", "/v1/posts/\(post)", token: token).header("ETag"))
            #expect(try await app.send("PUT", "/v1/posts/\(post)/like", token: token).status == 200)
            let after = try await app.send("GET", "/v1/posts/\(post)", token: token, headers: [("If-None-Match", before)])
            #expect(after.status == 200 && after.header("ETag") != before)
            // Errors and writes carry no tag.
            #expect(try await app.send("GET", "/v1/posts/999999", token: token).header("ETag") == nil)
            #expect(try await app.send("PUT", "/v1/posts/\(post)/like", token: token).header("ETag") == nil)
        }
    }
}
