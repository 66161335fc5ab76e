@testable import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Path ids are canonical decimal digits: anything else names no resource, and never
/// another one (`+1` is not post 1; `%00` does not cut the path short).
@Suite struct PathIdentifierTests {
    @Test func nonCanonicalIDsNameNoPost() async throws {
        try await withTestApp { app async throws in
            let user = try await app.user()
            let influencer = try await app.influencer("canonical")
            let postID: Int = try await app.database.pool.withConnection { connection in
                try connection.query(
                    "INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end) VALUES (\(influencer), 'first', 'food', now(), now() + interval '1 day') RETURNING id").first!.decode(0)
            }
            #expect(try await app.send("GET", "/v1/posts/\(postID)", token: user.token).status == 200)
            for id in ["+1", "-0", "01", "1.0", "1e0", " 1", "0x1", "١", "99999999999999999999"] {
                let response = try await app.send("GET", "/v1/posts/\(id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id)", token: user.token)
                #expect([400, 404].contains(response.status), "\(id) answered \(response.status): \(response.text)")
                #expect(response.json["id"] == nil, "\(id)")
            }
        }
    }

    @Test(arguments: ["/hello/%00", "/hello%00", "/query%00/x"])
    func anEncodedNULNeverShortensThePath(_ path: String) async throws {
        let harness = try EngineHarness()
        let response = try await RawHTTPClient.request("GET", path, port: harness.port)
        #expect(response.status == 404 || response.status == 400, "\(path) answered \(response.status)")
        await harness.stop()
    }

    @Test func anEncodedNULInAQueryValueIsNotACutOff() async throws {
        let harness = try EngineHarness()
        let response = try await RawHTTPClient.request("GET", "/query?search=ab%00cd", port: harness.port)
        #expect(response.status == 200)
        #expect(try response.jsonObject()["search"] as? String != "ab")
        await harness.stop()
    }
}

/// Offset paging stops at item 10,000: deeper pages cost in proportion to their depth.
@Suite struct PageDepthTests {
    @Test func pagesBeyondItem10000AreRefusedSayingWhyAndPagesUpToItAreServed() async throws {
        try await withTestApp { app async throws in
            let user = try await app.user()
            for path in ["/v1/posts?page=501", "/v1/posts?page=201&limit=50", "/v1/posts?sort=latest&page=2000&limit=50",
                         "/v1/posts?status=closed&page=10001", "/v1/influencers?page=501", "/v1/me/likes?page=1000&limit=11"] {
                let response = try await app.send("GET", path, token: user.token)
                #expect(response.status == 400, "\(path): \(response.status)")
                #expect(response.json["field"] as? String == "page", "\(path)")
                #expect((response.json["message"] as? String)?.contains("next_cursor") == true, "\(path)")
            }
            for path in ["/v1/posts?page=500", "/v1/posts?page=200&limit=50", "/v1/influencers?page=500", "/v1/me/likes?page=1000&limit=10"] {
                let response = try await app.send("GET", path, token: user.token)
                #expect(response.status == 200, "\(path): \(response.text)")
                #expect(response.json["has_next"] as? Bool == false, "\(path)")
            }
        }
    }
}
