import Foundation
import TestSupport
import Testing

/// Follows, the schedule of followed influencers, and a user's own posts, against PostgreSQL.
@Suite struct FollowsTests {
    @Test func followingIsIdempotentCountedAndShownOnProfiles() async throws {
        try await withTestApp { app async throws in
            let kim = try await app.influencer("follow.kim")
            let lee = try await app.influencer("follow.lee")
            let (_, alice) = try await app.user()
            let (bobID, bob) = try await app.user()
            let (_, anonymous) = try await app.user(anonymous: true)

            let first = try await app.send("PUT", "/v1/influencers/\(kim)/follow", token: alice)
            #expect(first.status == 200)
            #expect(first.json["followed"] as? Bool == true && first.json["app_followers_count"] as? Int == 1)
            #expect(try await app.send("PUT", "/v1/influencers/\(kim)/follow", token: alice).json["app_followers_count"] as? Int == 1)
            #expect(try await app.send("PUT", "/v1/influencers/\(kim)/follow", token: bob).json["app_followers_count"] as? Int == 2)
            _ = try await app.send("PUT", "/v1/influencers/\(lee)/follow", token: alice)

            let profile = try await app.send("GET", "/v1/influencers/\(kim)", token: alice)
            #expect(profile.json["is_followed"] as? Bool == true && profile.json["app_followers_count"] as? Int == 2)
            #expect(try await app.send("GET", "/v1/influencers/\(kim)", token: anonymous).json["is_followed"] as? Bool == false)

            let mine = try await app.send("GET", "/v1/me/follows", token: alice)
            let names = (mine.json["data"] as? [[String: any Sendable]])?.compactMap { $0["username"] as? String }
            #expect(names == ["follow.lee", "follow.kim"] && mine.json["total"] as? Int == 2)

            let unfollowed = try await app.send("DELETE", "/v1/influencers/\(kim)/follow", token: alice)
            #expect(unfollowed.json["followed"] as? Bool == false && unfollowed.json["app_followers_count"] as? Int == 1)
            #expect(try await app.send("DELETE", "/v1/influencers/\(kim)/follow", token: alice).json["app_followers_count"] as? Int == 1)

            #expect(try await app.send("PUT", "/v1/influencers/\(kim)/follow", token: anonymous).errorCode == "login_required")
            #expect(try await app.send("PUT", "/v1/influencers/999999/follow", token: alice).errorCode == "influencer_not_found")
            #expect(try await app.send("DELETE", "/v1/influencers/999999/follow", token: alice).errorCode == "influencer_not_found")

            // Deleting an account takes its follows and their counts with it.
            try await app.database.pool.withConnection { try $0.execute("DELETE FROM users WHERE id = \(bobID)") }
            #expect(try await app.send("GET", "/v1/influencers/\(kim)", token: alice).json["app_followers_count"] as? Int == 0)
        }
    }

    @Test func oneAccountFollowsAtMostTheLimitEvenConcurrently() async throws {
        try await withTestApp { app async throws in
            let (id, token) = try await app.user()
            try await app.database.pool.withConnection { connection in
                try connection.execute("INSERT INTO influencers (username) SELECT 'limit_' || n FROM generate_series(1, 1001) n")
                try connection.execute("""
                    INSERT INTO follows (user_id, influencer_id)
                    SELECT \(id), id FROM influencers WHERE username LIKE 'limit\\_%' ORDER BY id LIMIT 998
                    """)
            }
            let free: [Int] = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    SELECT id FROM influencers WHERE username LIKE 'limit\\_%' AND id NOT IN (SELECT influencer_id FROM follows) ORDER BY id
                    """).map { try $0.decode(0) }
            }
            #expect(free.count == 3)
            // Three at once with room for two: the account's row lock counts them one at a time.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for influencer in free { group.addTask { try await app.send("PUT", "/v1/influencers/\(influencer)/follow", token: token).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 200, 409])
            let unfollowed = try await app.database.pool.withConnection { connection in
                try connection.query("SELECT id FROM influencers WHERE username LIKE 'limit\\_%' AND id NOT IN (SELECT influencer_id FROM follows)")
                    .first.map { try $0.decode(0, as: Int.self) }
            }
            let left = try #require(unfollowed)
            let refused = try await app.send("PUT", "/v1/influencers/\(left)/follow", token: token)
            #expect(refused.status == 409 && refused.errorCode == "follow_limit")
            // Following one already followed still answers 200 at the limit.
            let followed = try await app.database.pool.withConnection { try $0.query("SELECT min(influencer_id) FROM follows").first!.decode(0, as: Int.self) }
            #expect(try await app.send("PUT", "/v1/influencers/\(followed)/follow", token: token).status == 200)
        }
    }

    @Test func theScheduleHasFollowedInfluencersPostsOverlappingTheKoreaDatesByEnd() async throws {
        try await withTestApp { app async throws in
            let followed = try await app.influencer("sched.kim")
            let other = try await app.influencer("sched.other")
            let (_, token) = try await app.user()
            _ = try await app.send("PUT", "/v1/influencers/\(followed)/follow", token: token)
            // The range is 2026-12-10 ... 2026-12-12 in Korea: [12-09T15:00Z, 12-12T15:00Z).
            let endsAtStart = try await app.post(influencer: followed, name: "ends at the range's first instant",
                                                 start: "2026-12-01T00:00:00Z", end: "2026-12-09T15:00:00Z")
            _ = try await app.post(influencer: followed, name: "ends just before", start: "2026-12-01T00:00:00Z", end: "2026-12-09T14:59:59Z")
            let spans = try await app.post(influencer: followed, name: "spans the range", start: "2026-12-01T00:00:00Z", end: "2027-01-31T00:00:00Z")
            let inside = try await app.post(influencer: followed, name: "inside", start: "2026-12-10T01:00:00Z", end: "2026-12-11T01:00:00Z")
            let startsLast = try await app.post(influencer: followed, name: "starts in the last instant",
                                                start: "2026-12-12T14:59:59Z", end: "2026-12-20T00:00:00Z")
            _ = try await app.post(influencer: followed, name: "starts after", start: "2026-12-12T15:00:00Z", end: "2026-12-20T00:00:00Z")
            _ = try await app.post(influencer: other, name: "not followed", start: "2026-12-10T01:00:00Z", end: "2026-12-11T01:00:00Z")
            let liked = try await app.send("PUT", "/v1/posts/\(inside)/like", token: token)
            #expect(liked.status == 200)

            let page = try await app.send("GET", "/v1/me/schedule?start_date=2026-12-10&end_date=2026-12-12", token: token)
            #expect(page.status == 200)
            let posts = try #require(page.json["data"] as? [[String: any Sendable]])
            #expect(posts.compactMap { $0["id"] as? Int } == [endsAtStart, inside, startsLast, spans])
            #expect(posts.compactMap { $0["is_liked"] as? Bool } == [false, true, false, false])
            #expect(page.json["total"] as? Int == 4 && page.json["has_next"] as? Bool == false)

            let second = try await app.send("GET", "/v1/me/schedule?start_date=2026-12-10&end_date=2026-12-12&limit=3&page=2", token: token)
            #expect((second.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } == [spans])
            let beyond = try await app.send("GET", "/v1/me/schedule?start_date=2026-12-10&end_date=2026-12-12&limit=3&page=3", token: token)
            #expect((beyond.json["data"] as? [Any])?.isEmpty == true && beyond.json["total"] as? Int == 4)

            let grouped = try await app.send("GET", "/v1/me/schedule?start_date=2026-12-10&end_date=2026-12-12&group=day", token: token)
            let days = try #require(grouped.json["days"] as? [[String: any Sendable]])
            #expect(days.compactMap { $0["date"] as? String } == ["2026-12-10", "2026-12-11", "2026-12-20", "2027-01-31"])
            #expect(days.map { ($0["posts"] as? [[String: any Sendable]])?.count } == [1, 1, 1, 1])
            #expect(grouped.json["total"] as? Int == 4)
        }
    }

    @Test func scheduleRangesAreRequiredOrderedAndAtMost92Days() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            for (query, field) in [("end_date=2026-12-01", "start_date"), ("start_date=2026-12-01", "end_date"),
                                   ("start_date=2026-12-1&end_date=2026-12-02", "start_date"),
                                   ("start_date=2026-12-02&end_date=2026-12-01", "end_date"),
                                   ("start_date=2026-12-01&end_date=2027-03-03", "end_date"),
                                   ("start_date=2026-12-01&end_date=2026-12-02&group=week", "group")] {
                let response = try await app.send("GET", "/v1/me/schedule?\(query)", token: token)
                #expect(response.status == 400, "\(query)")
                #expect(response.json["field"] as? String == field, "\(query)")
            }
            // 92 days, both counted; an anonymous user follows nobody.
            let quarter = try await app.send("GET", "/v1/me/schedule?start_date=2026-12-01&end_date=2027-03-02", token: token)
            #expect(quarter.status == 200 && quarter.json["total"] as? Int == 0)
        }
    }

    @Test func myPostsAreTheOnesISubmittedNewestFirst() async throws {
        try await withTestApp { app async throws in
            let influencer = try await app.influencer("mine.kim")
            let (me, token) = try await app.user()
            let (other, _) = try await app.user()
            let older = try await app.post(influencer: influencer, name: "older", start: "2026-12-01T00:00:00Z", end: "2026-12-02T00:00:00Z",
                                           postedAt: "2026-11-01T00:00:00Z", submittedBy: me)
            let newer = try await app.post(influencer: influencer, name: "newer", start: "2026-12-01T00:00:00Z", end: "2026-12-02T00:00:00Z",
                                           postedAt: "2026-11-02T00:00:00Z", submittedBy: me)
            _ = try await app.post(influencer: influencer, name: "theirs", start: "2026-12-01T00:00:00Z", end: "2026-12-02T00:00:00Z",
                                   submittedBy: other)
            let mine = try await app.send("GET", "/v1/me/posts", token: token)
            #expect((mine.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } == [newer, older])
            #expect(mine.json["total"] as? Int == 2)
        }
    }
}
