@testable import App
import Domain
import Fakes
import Foundation
import HTTPServer
import Persistence
@testable import Server
import TestSupport
import Testing

/// The feed: the day's stable shuffle, counters, filters and keyset paging.
@Suite struct FeedTests {
    /// 2026-12-02 15:00 KST.
    private static let afternoon = Date(timeIntervalSince1970: 1_796_191_200)

    private func insertPosts(_ app: TestApp, _ specs: [(name: String, category: String, start: TimeInterval, end: TimeInterval)], username: String = "feed.seller") async throws -> [Int] {
        let influencer = try await app.influencer(username, fullName: "피드 판매자")
        let now = app.clock.now
        return try await app.database.pool.transaction { connection in
            try specs.enumerated().map { index, spec in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    VALUES (\(influencer), \(spec.name), \(spec.category), \(now.addingTimeInterval(spec.start)), \(now.addingTimeInterval(spec.end)), \(now.addingTimeInterval(Double(index)))) RETURNING id
                    """).first!.decode(0)
            }
        }
    }

    private func ids(_ response: TestResponse) -> [Int] {
        (response.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } ?? []
    }

    private func pageAll(_ app: TestApp, _ path: String, token: String, limit: Int = 7) async throws -> [Int] {
        var all: [Int] = []
        var page = 1
        while true {
            let response = try await app.send("GET", "\(path)\(path.contains("?") ? "&" : "?")limit=\(limit)&page=\(page)", token: token)
            #expect(response.status == 200, "\(response.text)")
            all += ids(response)
            guard response.json["has_next"] as? Bool == true else { return all }
            page += 1
        }
    }

    @Test func theDefaultFeedPagesEveryPostOnceOpenFirstAndReshufflesTheNextDay() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let open = try await insertPosts(app, (0..<20).map { ("open \($0)", "food", -86_400, Double(3600 * ($0 + 1))) })
            let closed = try await insertPosts(app, (0..<10).map { ("closed \($0)", "food", -30 * 86_400, -Double(86_400 * ($0 + 1))) }, username: "closed.seller")

            let first = try await pageAll(app, "/v1/posts", token: token)
            #expect(first.count == 30)
            #expect(Set(first).count == 30)
            #expect(Set(first.prefix(20)) == Set(open))
            #expect(Array(first.suffix(10)) == closed)
            #expect(try await app.send("GET", "/v1/posts?limit=50", token: token).json["total"] as? Int == 30)
            #expect(try await pageAll(app, "/v1/posts?category=food", token: token) == first, "one category holds them all")
            let empty = try await app.send("GET", "/v1/posts?category=beauty", token: token)
            #expect(empty.json["total"] as? Int == 0 && ids(empty).isEmpty && empty.json["has_next"] as? Bool == false)
            let beyond = try await app.send("GET", "/v1/posts?limit=7&page=9", token: token)
            #expect(beyond.json["total"] as? Int == 30 && ids(beyond).isEmpty, "a page past the end keeps the total")
            let (_, member) = try await app.user()
            #expect(try await app.send("PUT", "/v1/posts/\(closed[3])/like", token: member).status == 200)
            let liked = try await app.send("GET", "/v1/posts?limit=7&page=4", token: member)
            let flags = (liked.json["data"] as? [[String: any Sendable]])?.map { $0["is_liked"] as? Bool } ?? []
            #expect(ids(liked) == Array(first[21...27]) && flags == (21...27).map { first[$0] == closed[3] }, "is_liked for the viewer")

            app.clock.advance(by: 3 * 3600)
            #expect(try await pageAll(app, "/v1/posts", token: token) == first, "stable within the day even as posts close")

            app.clock.advance(by: 86_400)
            let nextDay = try await pageAll(app, "/v1/posts", token: token)
            #expect(Set(nextDay) == Set(first))
            #expect(nextDay != first)
        }
    }

    @Test func aShortOpenSectionIsFollowedByTheNewestClosedPostsOnEveryPage() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let open = try await insertPosts(app, (0..<2).map { ("open \($0)", "kids", -86_400, 86_400) })
            let closed = try await insertPosts(app, (0..<5).map { ("closed \($0)", "kids", -30 * 86_400, -Double(86_400 * ($0 + 1))) }, username: "closed.kids")
            _ = try await insertPosts(app, [("elsewhere", "food", -86_400, 86_400)], username: "food.seller")

            for path in ["/v1/posts?category=kids", "/v1/posts?category=%ED%82%A4%EC%A6%88"] {
                let first = try await app.send("GET", "\(path)&limit=4", token: token)
                #expect(Set(ids(first).prefix(2)) == Set(open), "\(path)")
                #expect(Array(ids(first).dropFirst(2)) == Array(closed.prefix(2)), "\(path): then the newest closed")
                #expect(first.json["total"] as? Int == 7 && first.json["has_next"] as? Bool == true)
                #expect(try await pageAll(app, path, token: token, limit: 4).suffix(5) == ArraySlice(closed), "\(path)")
            }
            let all = try await pageAll(app, "/v1/posts", token: token, limit: 3)
            #expect(all.count == 8 && Array(all.suffix(5)) == closed, "first page mixes sections, later pages continue")
        }
    }

    @Test func postsAddedAcrossMidnightAppearExactlyOnceInTheNewDaysOrder() async throws {
        // 23:50 KST.
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon.addingTimeInterval(8 * 3600 + 50 * 60))) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            _ = try await insertPosts(app, (0..<5).map { ("old \($0)", "pet", -86_400, 86_400) })
            try await BackgroundJobs.prepareFeed(app.dependencies.feed, now: app.clock.source())
            let prepared = try await app.database.pool.withConnection { try $0.query("SELECT day::text FROM feed_days ORDER BY day").map { try $0.decode(0, as: String.self) } }
            #expect(prepared == ["2026-12-02", "2026-12-03"], "tomorrow is ready before it starts")

            let late = try await insertPosts(app, [("added at 23:55", "pet", 0, 86_400)], username: "late.seller")
            app.clock.advance(by: 15 * 60)
            let added = try await insertPosts(app, [("added at 00:05", "pet", 0, 86_400)], username: "early.seller")

            let all = try await pageAll(app, "/v1/posts?category=pet", token: token, limit: 3)
            #expect(all.count == 7)
            #expect(Set(all).count == 7)
            #expect(all.contains(late[0]) && all.contains(added[0]))
        }
    }

    @Test func categoryCountsStayExactThroughWritesAndTime() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user()
            let ids = try await insertPosts(app, [("a", "food", -3600, 1800), ("b", "food", -3600, 86_400), ("c", "food", -10 * 86_400, -5 * 86_400), ("d", "pet", 3600, 7200)])
            func counts() async throws -> [String: [Int]] {
                let response = try await app.send("GET", "/v1/categories")
                var result: [String: [Int]] = [:]
                for entry in response.json["data"] as? [[String: any Sendable]] ?? [] {
                    result[entry["id"] as! String] = [entry["post_count"] as! Int, entry["open_post_count"] as! Int]
                }
                return result
            }
            var now = try await counts()
            #expect(now["food"] == [3, 2])
            #expect(now["pet"] == [1, 1])
            #expect(now["beauty"] == [0, 0])

            app.clock.advance(by: 3600)
            now = try await counts()
            #expect(now["food"] == [3, 1], "post a closed as time passed")

            #expect(try await app.send("PATCH", "/v1/posts/\(ids[1])", json: ["category": "pet"], token: (try await app.user(role: "admin")).token).status == 200)
            try await app.database.pool.withConnection { try $0.execute("DELETE FROM posts WHERE id = \(ids[2])") }
            now = try await counts()
            #expect(now["food"] == [1, 0])
            #expect(now["pet"] == [2, 2])
            _ = token
        }
    }

    @Test func closedPostsComeMostRecentlyClosedFirstWithExactTotals() async throws {
        try await withTestApp(clock: TestClock(start: Date(timeIntervalSince1970: 1_796_000_000))) { app async throws in
            let token = try await app.user().token
            // Closed 3, 1 and 2 days ago; one open; one closed an hour ago (today).
            let ids = try await insertPosts(app, [
                ("closed 3d", "food", -10 * 86_400, -3 * 86_400), ("closed 1d", "beauty", -10 * 86_400, -86_400),
                ("closed 2d", "food", -10 * 86_400, -2 * 86_400), ("open", "food", -86_400, 86_400), ("closed 1h", "food", -86_400, -3_600),
            ])
            let all = try await app.send("GET", "/v1/posts?status=closed", token: token)
            #expect(self.ids(all) == [ids[4], ids[1], ids[2], ids[0]])
            #expect(all.json["total"] as? Int == 4)
            let food = try await app.send("GET", "/v1/posts?status=closed&category=food&limit=2&page=2", token: token)
            #expect(self.ids(food) == [ids[0]])
            #expect(food.json["total"] as? Int == 3)
            #expect(try await app.send("GET", "/v1/posts?status=closed&page=9", token: token).json["total"] as? Int == 4)
        }
    }

    @Test func filtersMatchWhatTheyNameAndCountExactly() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let ids = try await insertPosts(app, [
                ("비타민 C 100%", "food", -86_400, 3 * 86_400),
                ("Vitamin_D", "food", -2 * 86_400, 3600),
                ("캠핑 의자", "camping", 86_400, 3 * 86_400),
                ("텐트", "camping", -20 * 86_400, -10 * 86_400),
            ])
            func found(_ query: String) async throws -> [Int] { self.ids(try await app.send("GET", "/v1/posts?\(query)", token: token)) }
            func total(_ query: String) async throws -> Int? { try await app.send("GET", "/v1/posts?\(query)", token: token).json["total"] as? Int }

            #expect(Set(try await found("category=camping")) == [ids[2], ids[3]])
            #expect(Set(try await found("category=%EC%BA%A0%ED%95%91%2F%EB%A0%88%EC%A0%80")) == [ids[2], ids[3]])
            #expect(try await found("search=%EB%B9%84%ED%83%80%EB%AF%BC") == [ids[0]])
            #expect(Set(try await found("search=vitamin")) == [ids[1]])
            #expect(try await found("search=100%25") == [ids[0]])
            #expect(try await found("search=n_D") == [ids[1]])
            #expect(try await found("search=n%25D").isEmpty)
            #expect(Set(try await found("search=%ED%94%BC%EB%93%9C")) == Set(ids), "influencer full name")
            #expect(try await total("search=vitamin") == 1)
            #expect(try await found("status=upcoming") == [ids[2]])
            #expect(try await found("status=closing_soon") == [ids[1]])
            #expect(try await found("status=ongoing") == [ids[0]])
            #expect(try await found("status=closed") == [ids[3]])
            #expect(try await found("date_from=2026-12-03&date_to=2026-12-04") == [ids[2], ids[0]])
            #expect(try await total("date_from=2026-12-03&date_to=2026-12-04") == 2)
            // Pages past the end still carry the exact total (counted, or from counters).
            #expect(try await found("search=vitamin&page=2").isEmpty)
            #expect(try await total("search=vitamin&page=2") == 1)
            #expect(try await total("category=camping&status=closed&limit=1&page=3") == 1)
            #expect(try await total("sort=latest&category=camping&page=5") == 2)
            #expect(try await total("sort=ending_soon&category=food&page=5") == 2)
            #expect(try await total("sort=ending_soon&category=food") == 2)
            // Filters counters do not answer, with a category.
            #expect(try await found("category=camping&status=upcoming") == [ids[2]])
            #expect(try await found("category=food&status=closing_soon") == [ids[1]])
            #expect(try await found("category=food&status=ongoing") == [ids[0]])
            #expect(try await total("category=camping&status=upcoming&sort=latest") == 1)
            #expect(try await total("category=camping&date_from=2026-12-03&date_to=2026-12-04&sort=ending_soon") == 1)

            for (query, field) in [("page=0", "page"), ("limit=51", "limit"), ("category=toys", "category"), ("status=soon", "status"),
                                   ("sort=random", "sort"), ("date_from=2026-12-01", "date_to"), ("date_from=2026-13-01&date_to=2026-12-01", "date_from"),
                                   ("date_from=2026-12-05&date_to=2026-12-01", "date_to"), ("cursor=abc", "cursor"), ("sort=latest&cursor=" + FeedParameters.self_encodeForTest(), "cursor")] {
                let response = try await app.send("GET", "/v1/posts?\(query)", token: token)
                #expect(response.status == 400, "\(query)")
                #expect(response.json["field"] as? String == field, "\(query): \(response.text)")
                if field == "cursor" { #expect(response.json["error"] as? String == "invalid_parameter", "one code for every cursor error") }
            }
        }
    }

    @Test func dateRangeTotalsFromCountersEqualCountingThroughWrites() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            // Windows around 2026-12-02 15:00 KST, some crossing midnights, some within a day.
            let hour: TimeInterval = 3600
            let specs: [(String, String, TimeInterval, TimeInterval)] = [
                ("a", "food", -40 * hour, -30 * hour), ("b", "food", -16 * hour, -14 * hour), ("c", "beauty", -14 * hour, 8 * hour),
                ("d", "food", 0, 0), ("e", "beauty", 9 * hour, 10 * hour), ("f", "food", 8.5 * hour, 33 * hour),
                ("g", "kids", -80 * hour, 80 * hour), ("h", "food", 34 * hour, 60 * hour),
            ]
            let ids = try await insertPosts(app, specs)
            var windows: [Int: (start: Date, end: Date, category: String)] = [:]
            for (id, spec) in zip(ids, specs) {
                windows[id] = (app.clock.now.addingTimeInterval(spec.2), app.clock.now.addingTimeInterval(spec.3), spec.1)
            }
            let days = (-4...4).map { KoreaDay(containing: app.clock.now.addingTimeInterval(Double($0) * 86_400)) }

            func check(_ label: String) async throws {
                for (i, first) in days.enumerated() {
                    for last in days[i...] {
                        for category in [nil, "food"] as [String?] {
                            let expected = windows.values.filter { window in
                                (category == nil || window.category == category) && window.start < last.end && window.end >= first.start
                            }.count
                            let query = "date_from=\(first)&date_to=\(last)" + (category.map { "&category=\($0)" } ?? "")
                            let response = try await app.send("GET", "/v1/posts?\(query)&limit=50", token: token)
                            #expect(response.json["total"] as? Int == expected, "\(label): \(query)")
                            #expect(self.ids(response).count == expected, "\(label): \(query) page")
                            #expect(try await app.send("GET", "/v1/posts?\(query)&sort=latest", token: token).json["total"] as? Int == expected)
                        }
                    }
                }
            }
            try await check("inserted")
            let moved = (start: app.clock.now.addingTimeInterval(50 * hour), end: app.clock.now.addingTimeInterval(70 * hour))
            try await app.database.pool.transaction { connection in
                try connection.execute("UPDATE posts SET group_buying_start = \(moved.start), group_buying_end = \(moved.end) WHERE id = \(ids[2])")
                try connection.execute("UPDATE posts SET category_id = 'food' WHERE id = \(ids[6])")
                try connection.execute("UPDATE posts SET likes_count = likes_count WHERE id = \(ids[5])")
                try connection.execute("DELETE FROM posts WHERE id = ANY(\("{\(ids[0]),\(ids[4])}")::bigint[])")
            }
            windows[ids[2]] = (moved.start, moved.end, "beauty")
            windows[ids[6]]?.category = "food"
            windows[ids[0]] = nil
            windows[ids[4]] = nil
            try await check("after moves, a category change and deletions")
        }
    }

    @Test func keysetPagingIsStableWhileNewPostsArrive() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let ids = try await insertPosts(app, (0..<9).map { ("상품 \($0)", "kids", -86_400, Double(3600 * (10 - $0))) })

            var arrived: [Int] = []
            for sort in ["latest", "ending_soon"] {
                // ending_soon runs after the new post arrived: it ends last, so it comes last.
                let expected = Array(ids.reversed()) + (sort == "ending_soon" ? arrived : [])
                var seen: [Int] = []
                var cursor: String?
                repeat {
                    let response = try await app.send("GET", "/v1/posts?sort=\(sort)&limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                    seen += self.ids(response)
                    #expect(response.json["total"] as? Int == ids.count + arrived.count, "\(sort) total from counters")
                    cursor = response.json["next_cursor"] as? String
                    if sort == "latest" && seen.count == 4 {
                        app.clock.advance(by: 60)
                        arrived = try await insertPosts(app, [("brand new", "kids", 0, 86_400)], username: "newcomer")
                    }
                } while cursor != nil
                #expect(seen == expected, "\(sort)")
            }
        }
    }
}

extension FeedParameters {
    /// A well-formed cursor of another sort, for the mismatch case.
    static func self_encodeForTest() -> String { encode(FeedCursor(sort: .popular, key: 1, id: 1)) }
}

/// `sort=popular` pages by likes with a cursor.
@Suite struct PopularFeedTests {
    @Test func popularPagesByLikesThenIdWithoutRepeats() async throws {
        try await withTestApp(clock: TestClock(start: Date(timeIntervalSince1970: 1_796_191_200))) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let influencer = try await app.influencer("popular")
            let ids: [Int] = try await app.database.pool.transaction { connection in
                try (0..<7).map { index in
                    try connection.query("""
                        INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, likes_count)
                        VALUES (\(influencer), \("여행 \(index)"), 'travel', now(), now() + interval '1 day', \([5, 1, 5, 0, 9, 1, 3][index])) RETURNING id
                        """).first!.decode(0)
                }
            }
            var seen: [Int] = []
            var cursor: String?
            repeat {
                let response = try await app.send("GET", "/v1/posts?sort=popular&limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                seen += (response.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } ?? []
                #expect(response.json["total"] as? Int == 7)
                cursor = response.json["next_cursor"] as? String
            } while cursor != nil
            #expect(seen == [ids[4], ids[2], ids[0], ids[6], ids[5], ids[1], ids[3]])
        }
    }
}
