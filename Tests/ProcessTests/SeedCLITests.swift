import Fakes
import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// `market09 seed` run as a process against PostgreSQL.
@Suite struct SeedCLITests {
    private func directory() throws -> String {
        let path = "/tmp/m09seed-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Counts that must agree whatever the dataset: counters equal the rows they count.
    private func consistency(_ database: TestDatabase) async throws -> [String: Int] {
        try await database.pool.withConnection { connection in
            let row = try connection.query("""
                SELECT (SELECT count(*) FROM influencers)::int, (SELECT count(*) FROM posts)::int, (SELECT count(*) FROM users)::int,
                       (SELECT count(*) FROM likes)::int,
                       (SELECT count(*) FROM posts p WHERE p.likes_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id))::int,
                       (SELECT count(*) FROM category_post_counts cc WHERE cc.post_count <> (SELECT count(*) FROM posts p WHERE p.category_id = cc.category_id))::int,
                       (SELECT count(*) FROM (
                           SELECT day, category_id, sum(starts) AS starts, sum(ends) AS ends FROM (
                               SELECT day, category_id, starts, ends FROM post_day_counts
                               UNION ALL SELECT korea_day(group_buying_start), category_id, -1, 0 FROM posts
                               UNION ALL SELECT korea_day(group_buying_end), category_id, 0, -1 FROM posts) x
                           GROUP BY day, category_id HAVING sum(starts) <> 0 OR sum(ends) <> 0) wrong)::int
                       + (SELECT count(*) FROM (
                           SELECT slot, category_id FROM (
                               SELECT slot, category_id, ends FROM post_end_slots
                               UNION ALL SELECT end_slot(group_buying_end), category_id, -1 FROM posts) x
                           GROUP BY slot, category_id HAVING sum(ends) <> 0) wrong)::int,
                       (SELECT count(*) FROM posts p, post_window_bounds b
                        WHERE b.longest IS NULL OR p.group_buying_end - p.group_buying_start > b.longest
                           OR p.group_buying_start - p.posted_at NOT BETWEEN b.lead_min AND b.lead_max)::int,
                       (SELECT count(*) FROM follows)::int,
                       (SELECT count(*) FROM influencers i WHERE i.app_followers_count <> (SELECT count(*) FROM follows f WHERE f.influencer_id = i.id))::int,
                       (SELECT count(*) FROM posts p, unnest(p.hashtags))::int,
                       (SELECT count(*) FROM ((SELECT p.id, t FROM posts p, unnest(p.hashtags) t EXCEPT SELECT post_id, tag FROM post_hashtags)
                                              UNION ALL (SELECT post_id, tag FROM post_hashtags EXCEPT SELECT p.id, t FROM posts p, unnest(p.hashtags) t)) x)::int
                       + (SELECT count(*) FROM hashtag_counts c WHERE c.posts <> (SELECT count(*) FROM post_hashtags h WHERE h.tag = c.tag))::int,
                       (SELECT count(*) FROM posts p FULL JOIN post_popularity q ON q.id = p.id
                        WHERE (p.likes_count, p.posted_at, p.group_buying_start, p.group_buying_end, p.category_id, p.influencer_id)
                              IS DISTINCT FROM (q.likes_count, q.posted_at, q.group_buying_start, q.group_buying_end, q.category_id, q.influencer_id))::int
                """).first!
            return ["influencers": try row.decode(0), "posts": try row.decode(1), "users": try row.decode(2), "likes": try row.decode(3),
                    "wrong like counts": try row.decode(4), "wrong category counts": try row.decode(5), "wrong day or end-slot counts": try row.decode(6),
                    "posts outside the window bounds": try row.decode(7), "follows": try row.decode(8), "wrong follower counts": try row.decode(9),
                    "hashtags": try row.decode(10), "wrong hashtag rows": try row.decode(11), "wrong popularity rows": try row.decode(12)]
        }
    }

    @Test func demoSeedingTwiceChangesNothingAndResetRebuildsTheSame() async throws {
        let database = try await TestDatabase.migrated()
        let environment = ["DATABASE_URL": database.url]
        let workspace = try directory()

        let first = try await Market09Process.run(["seed", "demo"], environment: environment, directory: workspace)
        #expect(first.code == 0, "\(first.output)")
        #expect(first.output.hasPrefix("demo: 300 influencers, 5000 posts added, 0 posts moved"))
        let afterFirst = try await consistency(database)
        #expect(afterFirst["influencers"] == 300)
        #expect(afterFirst["posts"] == 5000)
        #expect(afterFirst["users"] == 2300)
        #expect(afterFirst["likes"]! > 40_000)
        #expect(afterFirst["wrong like counts"] == 0)
        #expect(afterFirst["wrong category counts"] == 0)
        #expect(afterFirst["wrong day or end-slot counts"] == 0)
        #expect(afterFirst["follows"]! > 5_000)
        #expect(afterFirst["wrong follower counts"] == 0)
        #expect(afterFirst["hashtags"] == 15_000)
        #expect(afterFirst["wrong hashtag rows"] == 0)
        #expect(afterFirst["wrong popularity rows"] == 0)

        let second = try await Market09Process.run(["seed", "demo"], environment: environment, directory: workspace)
        #expect(second.output.contains("0 posts added, 0 posts moved"))
        #expect(second.output.hasSuffix("0 likes added, 0 follows added, 0 influencer requests added\n"))
        #expect(first.output.hasSuffix(", 5 influencer requests added\n"))
        #expect(try await consistency(database) == afterFirst)

        let reset = try await Market09Process.run(["seed", "demo", "--reset"], environment: environment, directory: workspace)
        #expect(reset.code == 0)
        #expect(try await consistency(database) == afterFirst)

        let open: Int = try await database.pool.withConnection {
            try $0.query("SELECT count(*)::int FROM posts WHERE group_buying_start <= now() AND group_buying_end >= now()").first!.decode(0)
        }
        #expect(open > 100, "the feed and the Top 10 are never empty")
        await database.drop()
    }

    @Test func demoSeedingRerunsWhenUsersPostedUnderDemoInfluencers() async throws {
        let database = try await TestDatabase.migrated()
        let environment = ["DATABASE_URL": database.url]
        let workspace = try directory()
        #expect(try await Market09Process.run(["seed", "demo"], environment: environment, directory: workspace).code == 0)
        try await database.pool.withConnection { connection in
            for name in ["내 상품", "세트 #", "세트 #두개", "x #1 #2"] {
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                    SELECT id, \(name), 'food', now(), now() + interval '1 day' FROM influencers WHERE username LIKE 'demo.%' ORDER BY id LIMIT 1
                    """)
            }
        }
        let again = try await Market09Process.run(["seed", "demo"], environment: environment, directory: workspace)
        #expect(again.code == 0, "\(again.output)")
        #expect(try await consistency(database)["wrong like counts"] == 0)
        await database.drop()
    }

    /// The totals a user sees after `seed demo` and after `seed bulk` are within 10 % of the
    /// matches (before: `upcoming` said 4,410 on the demo data when 1,046 posts were
    /// upcoming, the planner's guess past 1,000). Statuses and date ranges now come from
    /// counters, exact; a frequent search term's number is an estimate from fresh statistics.
    @Test func totalsAUserSeesAreWithinTenPercentAfterSeeding() async throws {
        for seed in [["seed", "demo"], ["seed", "bulk", "--posts", "6000", "--users", "400", "--likes", "6000", "--influencers", "50"]] {
            let database = try await TestDatabase.migrated()
            let result = try await Market09Process.run(seed, environment: ["DATABASE_URL": database.url], directory: try directory())
            try #require(result.code == 0, "\(result.output)")
            let app = try await TestApp.make(over: database.url, pool: database.pool, clock: TestClock(start: Date()))
            let (_, token) = try await app.user(anonymous: true)
            let term = try await database.pool.withConnection { connection in
                // The demo's most common product word (bulk names are words too).
                try connection.query("""
                    SELECT w FROM posts, regexp_split_to_table(product_name, '\\s+') w WHERE char_length(w) >= 2 GROUP BY w ORDER BY count(*) DESC LIMIT 1
                    """).first!.decode(0, as: String.self)
            }
            // And the most common single character: past 1,000 matches, so an estimate.
            let letter = try await database.pool.withConnection { connection in
                try connection.query("""
                    SELECT c FROM posts, regexp_split_to_table(lower(product_name), '') c WHERE c !~ '\\s|[0-9]' GROUP BY c ORDER BY count(DISTINCT posts.id) DESC LIMIT 1
                    """).first!.decode(0, as: String.self)
            }
            var checked: [String] = []
            let matchesTerm: SQL = "product_name ILIKE '%' || \(term) || '%' OR influencer_id IN (SELECT id FROM influencers WHERE username ILIKE '%' || \(term) || '%' OR full_name ILIKE '%' || \(term) || '%')"
            let matchesLetter: SQL = "lower(product_name) LIKE '%' || \(letter) || '%' OR influencer_id IN (SELECT id FROM influencers WHERE lower(username) LIKE '%' || \(letter) || '%' OR lower(full_name) LIKE '%' || \(letter) || '%')"
            for (query, condition): (String, SQL) in [
                ("status=upcoming", "group_buying_start > now()"),
                ("status=ongoing", "group_buying_start <= now() AND group_buying_end >= now() + interval '1 day'"),
                ("status=closing_soon", "group_buying_start <= now() AND group_buying_end >= now() AND group_buying_end < now() + interval '1 day'"),
                ("status=closed", "group_buying_end < now()"),
                ("status=upcoming&category=beauty", "group_buying_start > now() AND category_id = 'beauty'"),
                ("search=\(term.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", matchesTerm),
                ("search=\(letter.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", matchesLetter),
            ] {
                let answer = try await app.send("GET", "/v1/posts?\(query)", token: token)
                let shown = try #require((answer.json["total_matches"] ?? answer.json["total"]) as? Int, "\(query): \(answer.text)")
                let exact: Int = try await database.pool.withConnection { connection in
                    try connection.query("SELECT count(*)::int FROM posts WHERE \(condition)").first!.decode(0)
                }
                #expect(abs(Double(shown - exact)) <= 0.1 * Double(max(exact, 1)), "\(seed[1]) \(query): shown \(shown), \(exact) match")
                checked.append("\(query) \(shown)/\(exact)")
            }
            print("\(seed[1]): \(checked.joined(separator: ", "))")
            await app.close()
            await database.drop()
        }
    }

    /// Every index of the database, by its definition and whether it is valid.
    private func indexes(_ database: TestDatabase) async throws -> [String] {
        try await database.pool.withConnection { connection in
            try connection.query("""
                SELECT pg_get_indexdef(i.indexrelid) || CASE WHEN i.indisvalid THEN '' ELSE ' (invalid)' END
                FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' ORDER BY 1
                """).map { try $0.decode(0) }
        }
    }

    @Test func bulkSeedingLoadsExactCounts() async throws {
        let database = try await TestDatabase.migrated()
        let migrated = try await indexes(database)
        let result = try await Market09Process.run(["seed", "bulk", "--posts", "3000", "--users", "400", "--likes", "6000", "--influencers", "50"],
                                                   environment: ["DATABASE_URL": database.url], directory: try directory())
        #expect(result.code == 0, "\(result.output)")
        #expect(try await consistency(database) == ["influencers": 50, "posts": 3000, "users": 400, "likes": 6000, "wrong like counts": 0, "wrong category counts": 0, "wrong day or end-slot counts": 0,
                                                       "posts outside the window bounds": 0, "follows": 0, "wrong follower counts": 0,
                                                       "hashtags": 9000, "wrong hashtag rows": 0, "wrong popularity rows": 0])
        // The load drops the secondary indexes and builds them after the rows: all are back.
        #expect(try await indexes(database) == migrated)
        #expect(migrated.contains { $0.contains("posts_search_grams") })
        await database.drop()
    }

    /// A load that fails part-way (here at the likes, the last stream, refused by a
    /// constraint the test adds) leaves the database as it was: no influencers, users or
    /// posts of the streams before, and every index in place.
    @Test func aFailedBulkLoadLeavesTheDatabaseAsItWas() async throws {
        let database = try await TestDatabase.migrated()
        let (counts, migrated) = (try await consistency(database), try await indexes(database))
        _ = try await database.pool.withConnection { try $0.execute("ALTER TABLE likes ADD CONSTRAINT test_no_likes CHECK (post_id < 0) NOT VALID") }
        let result = try await Market09Process.run(["seed", "bulk", "--posts", "300", "--users", "40", "--likes", "600", "--influencers", "20"],
                                                   environment: ["DATABASE_URL": database.url], directory: try directory())
        #expect(result.code == 1)
        #expect(result.output.contains("test_no_likes"), "\(result.output)")
        _ = try await database.pool.withConnection { try $0.execute("ALTER TABLE likes DROP CONSTRAINT test_no_likes") }
        #expect(try await consistency(database) == counts)
        #expect(try await indexes(database) == migrated)
        await database.drop()
    }

    /// A deployment behind PgBouncer sets the request timeout on the role (or database);
    /// operators' commands are not requests: they run without it.
    @Test func operatorCommandsRunWithoutTheRequestTimeoutOfTheirRole() async throws {
        let database = try await TestDatabase.migrated()
        _ = try await database.pool.withConnection { try $0.execute("ALTER DATABASE \"\(unescaped: database.name)\" SET statement_timeout = '5ms'") }
        let result = try await Market09Process.run(["seed", "bulk", "--posts", "3000", "--users", "400", "--likes", "6000", "--influencers", "50"],
                                                   environment: ["DATABASE_URL": database.url], directory: try directory())
        #expect(result.code == 0, "\(result.output)")
        await database.drop()
    }

    @Test func seedUsageMistakesExit2() async throws {
        let workspace = try directory()
        #expect(try await Market09Process.run(["seed", "bulk", "--posts", "10"], directory: workspace).code == 2)
        #expect(try await Market09Process.run(["seed", "sample"], directory: workspace).code == 2)
        let help = try await Market09Process.run(["seed", "--help"], directory: workspace)
        #expect(help.code == 0)
        #expect(help.output.contains("seed bulk --posts N"))
    }
}
