import App
import Fakes
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Influencer endpoints and the Top 10's bounded staleness.
@Suite struct InfluencersAndRankingTests {
    private static let now = Date(timeIntervalSince1970: 1_796_191_200)

    private func post(_ app: TestApp, influencer: Int, name: String, token: String) async throws -> Int {
        let body: [String: any Sendable] = ["influencer_id": influencer, "product_name": name, "category": "living",
                                            "group_buying_start": "2026-12-01T00:00:00+09:00", "group_buying_end": "2026-12-09T00:00:00+09:00"]
        let response = try await app.send("POST", "/v1/posts", json: body, token: token)
        return try #require(response.json["id"] as? Int, "\(response.text)")
    }

    @Test func influencersAreSearchableWithPostCountsAndTheirOwnFeed() async throws {
        try await withTestApp(clock: TestClock(start: Self.now)) { app async throws in
            let (_, token) = try await app.user()
            let kim = try await app.influencer("living.kim", fullName: "김리빙")
            let lee = try await app.influencer("home_lee", fullName: "이홈")
            let kimPosts = [try await post(app, influencer: kim, name: "수납함", token: token), try await post(app, influencer: kim, name: "러그", token: token)]
            _ = try await post(app, influencer: lee, name: "조명", token: token)

            let all = try await app.send("GET", "/v1/influencers", token: token)
            #expect(all.json["total"] as? Int == 2)
            let found = try await app.send("GET", "/v1/influencers?search=%EA%B9%80", token: token)
            let entries = try #require(found.json["data"] as? [[String: any Sendable]])
            #expect(entries.count == 1)
            #expect(entries.first?["username"] as? String == "living.kim")
            #expect(entries.first?["post_count"] as? Int == 2)
            #expect(try await app.send("GET", "/v1/influencers?search=_", token: token).json["total"] as? Int == 1, "underscore is literal")

            let profile = try await app.send("GET", "/v1/influencers/\(lee)", token: token)
            #expect(profile.json["full_name"] as? String == "이홈")
            #expect(try await app.send("GET", "/v1/influencers/999999", token: token).errorCode == "influencer_not_found")

            let posts = try await app.send("GET", "/v1/influencers/\(kim)/posts?sort=latest", token: token)
            #expect((posts.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } == kimPosts.reversed())
            #expect(posts.json["total"] as? Int == 2)
            #expect(try await app.send("GET", "/v1/influencers/999999/posts", token: token).errorCode == "influencer_not_found")
        }
    }

    @Test func theTop10RankingIsAtMostTenSecondsStaleButLikersSeeTheirLikeAtOnce() async throws {
        try await withTestApp(clock: TestClock(start: Self.now)) { app async throws in
            let (_, owner) = try await app.user()
            let influencer = try await app.influencer("ranked")
            let first = try await post(app, influencer: influencer, name: "first", token: owner)
            let second = try await post(app, influencer: influencer, name: "second", token: owner)
            func ranking(_ token: String) async throws -> [[String: any Sendable]] {
                try #require(try await app.send("GET", "/v1/posts/top10", token: token).json["data"] as? [[String: any Sendable]])
            }
            #expect(try await ranking(owner).compactMap { $0["id"] as? Int } == [second, first])

            let (_, liker) = try await app.user()
            _ = try await app.send("PUT", "/v1/posts/\(first)/like", token: liker)
            let seenByLiker = try await ranking(liker)
            #expect(seenByLiker.compactMap { $0["id"] as? Int } == [second, first], "the order may lag")
            #expect(seenByLiker.last?["is_liked"] as? Bool == true)
            #expect(seenByLiker.last?["likes_count"] as? Int == 1)

            app.clock.advance(by: 10)
            #expect(try await ranking(owner).compactMap { $0["id"] as? Int } == [first, second])

            // The ranked posts are kept for the ranking's 10 s, but a deleted one leaves at once.
            #expect(try await app.send("DELETE", "/v1/posts/\(second)", token: owner).status == 204)
            #expect(try await ranking(owner).compactMap { $0["id"] as? Int } == [first])
        }
    }
}
