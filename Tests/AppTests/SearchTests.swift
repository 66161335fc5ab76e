@testable import App
import Domain
import Fakes
import Foundation
import HTTPServer
import Persistence
import TestSupport
import Testing

/// Search by syllable (migration 0013's gram index): every answer is checked against a
/// plain substring match computed here, whichever way the server reads it.
@Suite struct SearchTests {
    /// 2026-12-02 15:00 KST.
    private static let afternoon = Date(timeIntervalSince1970: 1_796_191_200)

    private struct Row {
        let id: Int
        let name: String
        let username: String
        let fullName: String

        func matches(_ term: String) -> Bool {
            [name, username, fullName].contains { $0.lowercased().contains(term.lowercased()) }
        }
    }

    private static func ids(_ response: TestResponse) -> [Int] {
        (response.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } ?? []
    }

    /// Every page of `path` (limit 50), in order: by page number, or by `next_cursor` once
    /// one is given (keyset sorts go on past the offset window that way).
    private static func pageAll(_ app: TestApp, _ path: String, token: String) async throws -> [Int] {
        var all: [Int] = []
        var next = "\(path)&limit=50&page=1"
        for page in 2... {
            let response = try await app.send("GET", next, token: token)
            #expect(response.status == 200, "\(next): \(response.text)")
            all += ids(response)
            guard response.json["has_next"] as? Bool == true else { return all }
            next = (response.json["next_cursor"] as? String).map { "\(path)&limit=50&cursor=\($0)" } ?? "\(path)&limit=50&page=\(page)"
        }
        return all
    }

    /// Inserts posts, each posted an hour after the one before.
    private static func insert(_ app: TestApp, _ posts: [(name: String, influencer: Int)]) async throws -> [Int] {
        let now = app.clock.now
        return try await app.database.pool.transaction { connection in
            try posts.enumerated().map { index, post in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    VALUES (\(post.influencer), \(post.name), 'food', \(now.addingTimeInterval(-3 * 86_400)), \(now.addingTimeInterval(Double(index % 5 - 2) * 86_400)), \(now.addingTimeInterval(-3600 * Double(posts.count - index)))) RETURNING id
                    """).first!.decode(0)
            }
        }
    }

    @Test func oneTwoAndLongerTermsMatchSubstringsOfProductAndInfluencerNames() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let kimjang = try await app.influencer("kimchi.lover", fullName: "김장 달인")
            let cheese = try await app.influencer("cheese_mom", fullName: "치즈맘")
            let plain = try await app.influencer("plain.seller")
            let specs: [(name: String, influencer: Int)] = [
                ("김치볶음밥", plain), ("볶음김치 1kg", plain), ("총각김치", cheese), ("치즈 김밥", plain), ("Kimchi Fried Rice", plain),
                ("감귤 세트", cheese), ("감귤세트 5kg", plain), ("원두 100% 아라비카", plain), ("치 김", plain), ("수제 잼", kimjang),
                ("ABC_def", plain), ("a b c", plain), ("ab", plain),
            ]
            let ids = try await Self.insert(app, specs)
            let people = [kimjang: ("kimchi.lover", "김장 달인"), cheese: ("cheese_mom", "치즈맘"), plain: ("plain.seller", "")]
            let rows = zip(ids, specs).map { Row(id: $0, name: $1.name, username: people[$1.influencer]!.0, fullName: people[$1.influencer]!.1) }

            let terms = ["김", "김치", "치김", "볶음김", "kimchi", "KIMCHI", "chi f", "감귤 세트", "감귤세트", "%", "100%", "_", "_d", "c_d",
                         "달인", "장 달", "lover", "치", "치즈", "a b", "ab", "b", "zz", "없는말", "e_m"]
            for term in terms {
                let expected = rows.filter { $0.matches(term) }.map(\.id)
                let query = term.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let found = try await Self.pageAll(app, "/v1/posts?search=\(query)&sort=latest", token: token)
                // sort=latest: newest posted first, which is the reverse of insertion here.
                #expect(found == expected.reversed(), "search=\(term)")
                let first = try await app.send("GET", "/v1/posts?search=\(query)", token: token)
                #expect(first.json["total"] as? Int == expected.count && first.json["total_exact"] as? Bool == true, "search=\(term): \(first.text)")
                #expect(Set(try await Self.pageAll(app, "/v1/posts?search=\(query)", token: token)) == Set(expected), "default order, search=\(term)")
            }

            // Control characters are never part of a name: refused, not scanned for.
            let control = try await app.send("GET", "/v1/posts?search=a%01b", token: token)
            #expect(control.status == 400 && control.json["field"] as? String == "search", "\(control.text)")
            // Influencers search by the same grams.
            let influencers = try await app.send("GET", "/v1/influencers?search=%EB%8B%AC", token: token)
            #expect((influencers.json["data"] as? [[String: any Sendable]])?.compactMap { $0["username"] as? String } == ["kimchi.lover"])
        }
    }

    @Test func renamingAPostOrAnInfluencerMovesItInSearch() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let seller = try await app.influencer("first.name", fullName: "처음이름")
            let ids = try await Self.insert(app, [("사과즙", seller), ("배즙", seller)])
            func found(_ term: String) async throws -> Set<Int> {
                Set(try await Self.pageAll(app, "/v1/posts?search=\(term.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", token: token))
            }
            #expect(try await found("사과") == [ids[0]])
            #expect(try await found("처음") == Set(ids))
            try await app.database.pool.withConnection { connection in
                try connection.execute("UPDATE posts SET product_name = '포도즙' WHERE id = \(ids[0])")
                try connection.execute("UPDATE influencers SET username = 'second.name', full_name = '두번째' WHERE id = \(seller)")
            }
            #expect(try await found("사과").isEmpty)
            #expect(try await found("포도") == [ids[0]])
            #expect(try await found("처음").isEmpty)
            #expect(try await found("두번") == Set(ids))
            #expect(try await found("second") == Set(ids))
            #expect(try await found("first").isEmpty)
        }
    }

    /// A long term asks the index for its rarest grams only (SearchStatistics.probe): posts
    /// holding those grams but not the term are candidates LIKE turns away. After ANALYZE,
    /// `hajun927`'s common bigrams (`ha`, `un`, ...) are left out of the probe; every answer
    /// is still the substring match, in every order and with filters.
    @Test func aLongTermAskingForItsRarestGramsFindsExactlyItsMatches() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let seller = try await app.influencer("plain.seller")
            let names = ["hajun927 세트", "hajun 927", "927hajun", "hajun92 7", "jun927ha", "HAJUN927", "xhajun9271", "hajun928", "ha jun 927"]
            let now = app.clock.now
            try await app.database.pool.withConnection { connection in
                try connection.execute("SET statement_timeout = 0")
                // 900 fillers hold the common grams (`ha`, `aj`, `ju`, `un`, `92`), the
                // named posts the rarer ones; every third filler is in beauty.
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    SELECT \(seller), 'hajun 92 ' || n, CASE WHEN n % 3 = 0 THEN 'beauty' ELSE 'food' END,
                           \(now.addingTimeInterval(-4 * 86_400)), \(now)::timestamptz + (n % 5 - 2) * interval '1 day', \(now)::timestamptz - n * interval '1 minute'
                    FROM generate_series(1, 900) n
                    """)
                for (index, name) in names.enumerated() {
                    try connection.execute("""
                        INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                        VALUES (\(seller), \(name), \(index % 2 == 0 ? "food" : "beauty"), \(now.addingTimeInterval(-4 * 86_400)),
                                \(now.addingTimeInterval(Double(index % 3) * 86_400)), \(now.addingTimeInterval(-30 * Double(index))))
                        """)
                }
                try connection.execute("ANALYZE posts")
            }
            let rows: [(id: Int, name: String, category: String, open: Bool)] = try await app.database.pool.withConnection { connection in
                try connection.query("SELECT id, product_name, category_id, group_buying_end >= \(now) FROM posts")
                    .map { (try $0.decode(0), try $0.decode(1), try $0.decode(2), try $0.decode(3)) }
            }
            for term in ["hajun927", "jun927", "hajun92", "un 92", "ajun9"] {
                let encoded = term.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                for (extra, category) in [("", nil), ("&sort=latest", nil), ("&sort=popular&category=beauty", "beauty"), ("&sort=ending_soon", nil)] as [(String, String?)] {
                    let openOnly = extra.contains("ending_soon")
                    let expected = Set(rows.filter { $0.name.lowercased().contains(term) && (category == nil || $0.category == category) && (!openOnly || $0.open) }.map(\.id))
                    let found = try await Self.pageAll(app, "/v1/posts?search=\(encoded)\(extra)", token: token)
                    #expect(Set(found) == expected && found.count == expected.count, "search=\(term)\(extra): \(found.count) for \(expected.count)")
                }
            }
        }
    }

    @Test func aTermInMostPostsPagesLikeTheFeedWithAnEstimatedTotalPastTheBound() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let seller = try await app.influencer("bulk.seller")
            // 1,300 posts: "김" in all but every tenth, "귤" in every 40th. After ANALYZE the
            // statistics call "김" frequent (pages walk their order) and "귤" rare (read through
            // the index); the answers must be the same as filtering the unsearched feed.
            let now = app.clock.now
            try await app.database.pool.withConnection { connection in
                try connection.execute("SET statement_timeout = 0")
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at, likes_count)
                    SELECT \(seller), CASE WHEN n % 10 = 0 THEN '상품 ' ELSE '김 상품 ' END || CASE WHEN n % 40 = 0 THEN '귤 ' ELSE '' END || n,
                           CASE WHEN n % 2 = 0 THEN 'food' ELSE 'beauty' END, \(now.addingTimeInterval(-4 * 86_400)), \(now)::timestamptz + (n % 7 - 3) * interval '1 day',
                           \(now)::timestamptz - n * interval '1 minute', n % 13
                    FROM generate_series(1, 1300) n
                    """)
                try connection.execute("ANALYZE posts")
            }
            let productNames: [Int: String] = try await app.database.pool.withConnection { connection in
                Dictionary(uniqueKeysWithValues: try connection.query("SELECT id, product_name FROM posts").map { (try $0.decode(0), try $0.decode(1)) })
            }
            for (sort, extra) in [("default", ""), ("latest", "&sort=latest"), ("popular", "&sort=popular"), ("ending_soon", "&sort=ending_soon"),
                                  ("default, food", "&category=food"), ("latest, ongoing", "&sort=latest&status=ongoing")] {
                let everything = try await Self.pageAll(app, "/v1/posts?x=1\(extra)", token: token)
                let unsearched = try await app.send("GET", "/v1/posts?x=1\(extra)", token: token)
                // From counters (exact at any size), or counted: exact up to the bound.
                #expect(unsearched.json["total_exact"] as? Bool == (everything.count <= FeedPage.exactTotalLimit || !extra.contains("status")),
                        "\(extra): \(unsearched.json["total"] ?? "") for \(everything.count)")
                if everything.count <= FeedPage.exactTotalLimit || !extra.contains("status") {
                    #expect(unsearched.json["total"] as? Int == everything.count, "\(extra)")
                }
                for term in ["김", "귤", "김 상품"] {
                    // Offset pages of a search stop at item 1,000; cursors go on.
                    let expected = Array(everything.filter { productNames[$0]!.contains(term) }.prefix(extra.contains("sort=") ? .max : FeedPage.exactTotalLimit))
                    let found = try await Self.pageAll(app, "/v1/posts?search=\(term.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)\(extra)", token: token)
                    #expect(found == expected, "search=\(term), \(sort): \(found.count) found, \(expected.count) expected")
                }
            }
            // Past 1,000 matches the number of matches is an estimate, flagged, in
            // total_matches; `total` promises what offset pages reach: item 1,000, the last
            // page cut there. Before, total said 1,170 and page 34 of 30 answered 400, so a
            // client paging until it held `total` items failed.
            let first = try await app.send("GET", "/v1/posts?search=%EA%B9%80", token: token)
            #expect(first.json["total"] as? Int == FeedPage.exactTotalLimit && first.json["total_exact"] as? Bool == false, "\(first.text)")
            #expect((first.json["total_matches"] as? Int ?? 0) > FeedPage.exactTotalLimit && first.json["has_next"] as? Bool == true)
            var held: [Int] = []
            for page in 1... {
                let response = try await app.send("GET", "/v1/posts?search=%EA%B9%80&limit=30&page=\(page)", token: token)
                #expect(response.status == 200 && response.json["total"] as? Int == 1_000, "page \(page): \(response.text)")
                held += Self.ids(response)
                guard response.json["has_next"] as? Bool == true, page < 40 else { break }
            }
            #expect(held.count == 1_000 && Set(held).count == 1_000)
            let beyond = try await app.send("GET", "/v1/posts?search=%EA%B9%80&limit=30&page=35", token: token)
            #expect(beyond.status == 400 && beyond.json["field"] as? String == "page", "\(beyond.text)")
            // The app's list on the compatible surface: the same promise, in its shape.
            var appHeld = 0
            for page in 1...34 {
                let response = try await app.send("GET", "/functions/v1/posts?action=list&search=%EA%B9%80&limit=30&page=\(page)", token: token,
                                                  headers: [("apikey", TestApp.anonKey)])
                #expect(response.status == 200 && response.json["total"] as? Int == 1_000, "functions page \(page): \(response.text)")
                appHeld += (response.json["data"] as? [Any])?.count ?? 0
            }
            #expect(appHeld == 1_000)
            let rare = try await app.send("GET", "/v1/posts?search=%EA%B7%A4", token: token)
            #expect(rare.json["total"] as? Int == 32 && rare.json["total_exact"] as? Bool == true, "\(rare.text)")
        }
    }

    /// A term too rare to walk for reads every match, and in the default order it reads the
    /// open ones first (`SearchRead.openFirst`): the ended ones only as far as a page reaches
    /// into them, counted up to the bound. Pages hold the open matches, then the ended ones
    /// from the most recently ended. The total is exact: past 1,000 ended matches a term of
    /// several grams is counted (its statistics are only a bound; a one-gram term the
    /// statistics list is estimated, flagged, as a walked search's total).
    @Test func theDefaultOrderReadsOpenMatchesFirstAndCountsEndedOnesToTheBound() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let seller = try await app.influencer("jam.seller")
            let now = app.clock.now
            // 30,000 posts. 감귤잼 in 1,200 (100 open, 1,100 ended); 딸기잼 in 450 (50 open,
            // 400 ended); 사과잼 in 2,400 (1,200 open, 1,200 ended).
            try await app.database.pool.withConnection { connection in
                try connection.execute("SET statement_timeout = 0")
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    SELECT \(seller), CASE WHEN n <= 1200 THEN '감귤잼 ' WHEN n <= 1650 THEN '딸기잼 ' WHEN n <= 4050 THEN '사과잼 ' ELSE '식빵 ' END || n,
                           'food', \(now)::timestamptz - interval '90 days',
                           CASE WHEN n <= 100 OR n BETWEEN 1201 AND 1250 OR n BETWEEN 1651 AND 4050 AND n % 2 = 0 OR n > 4050 AND n % 3 = 0
                                THEN \(now)::timestamptz + interval '2 days'
                                ELSE \(now)::timestamptz - n * interval '1 minute' - interval '2 days' END,
                           \(now)::timestamptz - interval '91 days'
                    FROM generate_series(1, 30000) n
                    """)
                try connection.execute("ANALYZE posts")
            }
            try await app.waitForFeed(token: token)
            let ended: [Int: Double] = try await app.database.pool.withConnection { connection in
                Dictionary(uniqueKeysWithValues: try connection.query("""
                    SELECT id, extract(epoch FROM group_buying_end)::float8 FROM posts WHERE group_buying_end < \(now)
                    """).map { (try $0.decode(0), try $0.decode(1)) })
            }
            for (term, open, endedCount) in [("감귤잼", 100, 1_100), ("딸기잼", 50, 400)] {
                let path = "/v1/posts?search=\(term.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                let found = try await Self.pageAll(app, path, token: token)
                #expect(found.count == min(1_000, open + endedCount) && Set(found).count == found.count, "\(term): \(found.count)")
                #expect(found.prefix(open).allSatisfy { ended[$0] == nil }, "\(term): the open matches first")
                let endings = found.dropFirst(open).map { ended[$0] ?? .infinity }
                #expect(endings == endings.sorted(by: >) && endings.allSatisfy(\.isFinite), "\(term): then the ended ones, latest first")
                // total_matches appears once the offset window cuts `total`.
                let first = try await app.send("GET", path, token: token)
                let matches = first.json["total_matches"] as? Int ?? first.json["total"] as? Int
                #expect(matches == open + endedCount && first.json["total_exact"] as? Bool == true, "\(term): \(first.text)")
            }
            // 사과잼, page 20 of 50: 1,200 open and 1,200 ended, counted.
            let deep = try await app.send("GET", "/v1/posts?search=%EC%82%AC%EA%B3%BC%EC%9E%BC&limit=50&page=20", token: token)
            #expect(deep.status == 200 && Self.ids(deep).count == 50, "\(deep.text)")
            #expect(deep.json["total_exact"] as? Bool == true && deep.json["total_matches"] as? Int == 2_400, "\(deep.text)")
        }
    }
}
