import Domain
import Fakes
import Foundation
import TestSupport
import Testing

/// The total of a search for a term of several grams past 1,000 matches: counted when the
/// sample (`SearchSample`, migration 0042) holds too few of them to estimate from, otherwise
/// estimated from it, flagged, and within 10 %. Before, such a term walked as if as common as
/// its rarest gram and reported that gram's frequency as its total: here 9,000 for 3,000
/// matches and 30,000 for 12,000.
@Suite struct SearchSampleTests {
    /// 2026-12-02 15:00 KST.
    private static let afternoon = Date(timeIntervalSince1970: 1_796_191_200)

    @Test func aLongTermsTotalIsCountedOrEstimatedFromTheSample() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let seller = try await app.influencer("sample.seller")
            let now = app.clock.now
            // 39,000 posts. "크림 12" in 12,000 open ones; 18,000 ended ones hold each of its
            // grams (크림, "림 ", " 1", "12") but not the term. "크림 34" in 3,000 open ones;
            // 6,000 ended ones hold its grams.
            try await app.database.pool.withConnection { connection in
                try connection.execute("SET statement_timeout = 0")
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    SELECT \(seller), CASE WHEN n <= 12000 THEN '크림 12호 ' WHEN n <= 30000 THEN '무크림 1호 12팩 '
                                           WHEN n <= 33000 THEN '크림 34호 ' ELSE '무크림 3호 34팩 ' END || n,
                           'beauty', \(now)::timestamptz - interval '3 days',
                           \(now)::timestamptz + CASE WHEN n <= 12000 OR n BETWEEN 30001 AND 33000 THEN interval '3 days' ELSE interval '-1 day' END,
                           \(now)::timestamptz - n * interval '1 second'
                    FROM generate_series(1, 39000) n
                    """)
                try connection.execute("ANALYZE posts")
            }
            try await app.waitForFeed(token: token)
            let sampled: Int = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    SELECT count(*)::int FROM posts WHERE (hashint8(id) & 15) = 0 AND product_name LIKE '크림 12호 %'
                    """).single().decode(0)
            }
            for sort in ["", "&sort=latest"] {
                // 3,000 matches: about 190 in the sample, too few, so they are counted.
                let few = try await app.send("GET", "/v1/posts?search=%ED%81%AC%EB%A6%BC%2034&limit=20\(sort)", token: token)
                #expect(few.status == 200 && Self.names(few).count == 20 && Self.names(few).allSatisfy { $0.hasPrefix("크림 34호 ") }, "\(few.text)")
                #expect(few.json["total_matches"] as? Int ?? few.json["total"] as? Int == 3_000 && few.json["total_exact"] as? Bool == true,
                        "\(sort): \(few.text.prefix(300))")

                // 12,000 matches: sixteen times the sample's, flagged, within 10 %.
                let many = try await app.send("GET", "/v1/posts?search=%ED%81%AC%EB%A6%BC%2012&limit=20\(sort)", token: token)
                #expect(many.status == 200 && Self.names(many).count == 20 && Self.names(many).allSatisfy { $0.hasPrefix("크림 12호 ") }, "\(many.text)")
                let total = many.json["total_matches"] as? Int ?? many.json["total"] as? Int ?? 0
                #expect(total == 16 * sampled && many.json["total_exact"] as? Bool == false, "\(sort): \(many.text.prefix(300))")
                #expect(abs(total - 12_000) <= 1_200, "\(sort): \(total) for 12,000 (\(sampled) sampled)")
            }
        }
    }

    private static func names(_ response: TestResponse) -> [String] {
        (response.json["data"] as? [[String: any Sendable]])?.compactMap { $0["product_name"] as? String } ?? []
    }
}
