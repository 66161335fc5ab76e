@testable import App
import Domain
import Fakes
import Foundation
import HTTPServer
import Persistence
import TestSupport
import Testing

/// Newest-first lists filtered by the buying window walk only the stretch of `posted_at`
/// that migration 0015's bounds allow: they must still find every post, however long its
/// window and however long before or after its start it was posted, through edits too.
@Suite struct FeedWindowBoundsTests {
    /// 2026-12-02 15:00 KST.
    private static let afternoon = Date(timeIntervalSince1970: 1_796_191_200)
    private static let day: TimeInterval = 86_400

    private struct Spec {
        var start: TimeInterval
        var end: TimeInterval
        var posted: TimeInterval
    }

    private static func ids(_ response: TestResponse) -> [Int] {
        (response.json["data"] as? [[String: any Sendable]])?.compactMap { $0["id"] as? Int } ?? []
    }

    @Test func newestFirstListsByWindowFindPostsPostedLongBeforeOrAfterTheirStart() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 30 * 86_400 }, clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user(anonymous: true)
            let influencer = try await app.influencer("window.bounds")
            let now = app.clock.now
            let day = Self.day
            // Most posts are posted a day before their start; a few are not.
            let specs: [Spec] = (0..<24).map { i in
                let start = Double(i - 12) * day / 2
                return Spec(start: start, end: start + Double(1 + i % 5) * day, posted: start - day)
            } + [
                Spec(start: -3 * day, end: 2 * day, posted: -200 * day),   // announced long before
                Spec(start: -40 * day, end: -39 * day, posted: 30 * day),  // posted after it closed (an archive)
                Spec(start: -90 * day, end: 90 * day, posted: -91 * day),  // a half-year window
            ]
            let ids: [Int] = try await app.database.pool.transaction { connection in
                try specs.enumerated().map { index, spec in
                    try connection.query("""
                        INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                        VALUES (\(influencer), \("상품 \(index)"), 'food', \(now.addingTimeInterval(spec.start)), \(now.addingTimeInterval(spec.end)), \(now.addingTimeInterval(spec.posted))) RETURNING id
                        """).first!.decode(0)
                }
            }
            var windows = Dictionary(uniqueKeysWithValues: zip(ids, specs))

            let days = stride(from: -45, through: 45, by: 9).map { KoreaDay(containing: now.addingTimeInterval(Double($0) * day)) }
            let statuses: [(String, (Spec) -> Bool)] = [
                ("status=upcoming", { $0.start > 0 }),
                ("status=ongoing", { $0.start <= 0 && $0.end >= day }),
                ("status=closing_soon", { $0.start <= 0 && $0.end >= 0 && $0.end < day }),
                ("status=closed", { $0.end < 0 }),
            ]
            var queries = statuses
            for first in days {
                for last in days where last >= first {
                    let range = "date_from=\(first)&date_to=\(last)"
                    let overlaps: (Spec) -> Bool = { now.addingTimeInterval($0.start) < last.end && now.addingTimeInterval($0.end) >= first.start }
                    queries.append((range, overlaps))
                    // With a status, some ranges exclude every window but the longest.
                    for (status, matches) in statuses where last == first {
                        queries.append(("\(status)&\(range)", { overlaps($0) && matches($0) }))
                    }
                }
            }
            func check(_ label: String) async throws {
                for (query, matches) in queries {
                    let expected = windows.filter { matches($0.value) }
                        .sorted { ($0.value.posted, $0.key) > ($1.value.posted, $1.key) }.map(\.key)
                    let latest = try await app.send("GET", "/v1/posts?\(query)&sort=latest&limit=50", token: token)
                    #expect(Self.ids(latest) == expected, "\(label): \(query)")
                    #expect(latest.json["total"] as? Int == expected.count, "\(label): \(query)")
                    let popular = try await app.send("GET", "/v1/posts?\(query)&sort=popular&limit=50", token: token)
                    #expect(Set(Self.ids(popular)) == Set(expected), "\(label): \(query), popular")
                    let searched = try await app.send("GET", "/v1/posts?\(query)&search=%EC%83%81%ED%92%88&limit=50", token: token)
                    #expect(Set(Self.ids(searched)) == Set(expected), "\(label): \(query), search=상품")
                }
            }
            try await check("inserted")

            // Edits widen the bounds: a post re-dated far into the past, a window stretched to a year.
            try await app.database.pool.transaction { connection in
                try connection.execute("UPDATE posts SET posted_at = \(now.addingTimeInterval(-400 * day)) WHERE id = \(ids[3])")
                try connection.execute("UPDATE posts SET group_buying_start = \(now.addingTimeInterval(-365 * day)) WHERE id = \(ids[20])")
            }
            windows[ids[3]]?.posted = -400 * day
            windows[ids[20]]?.start = -365 * day
            try await check("after edits")
        }
    }

    /// `seed bulk` loaded with triggers off and left the bounds NULL before it widened them
    /// itself; migration 0022 repairs such a database. Before it a schedule found nothing
    /// (on the bench's 1 M posts too: 1,769 posts in the viewer's week, none answered).
    @Test func theRepairMigrationRestoresBoundsABulkLoadLeftEmpty() async throws {
        try await withTestApp(clock: TestClock(start: Self.afternoon)) { app async throws in
            let (_, token) = try await app.user()
            let influencer = try await app.influencer("window.repair")
            #expect(try await app.send("PUT", "/v1/influencers/\(influencer)/follow", token: token).status == 200)
            let now = app.clock.now
            let id: Int = try await app.database.pool.transaction { connection in
                let id: Int = try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    VALUES (\(influencer), '상품', 'food', \(now.addingTimeInterval(-Self.day)), \(now.addingTimeInterval(Self.day)), \(now.addingTimeInterval(-2 * Self.day))) RETURNING id
                    """)
                    .first!.decode(0)
                _ = try connection.execute("UPDATE post_window_bounds SET longest = NULL, lead_min = NULL, lead_max = NULL")
                return id
            }
            let day = KoreaDay(containing: now)
            let query = "/v1/me/schedule?start_date=\(day)&end_date=\(day)"
            #expect(Self.ids(try await app.send("GET", query, token: token)).isEmpty, "the broken state this repairs")

            let repair = try #require(try TestDatabase.migrations().first { $0.version == 22 })
            try await app.database.pool.withConnection { try $0.execute(unsafeSQL: repair.sql) }
            #expect(Self.ids(try await app.send("GET", query, token: token)) == [id])
            try await app.database.pool.withConnection { try $0.execute(unsafeSQL: repair.sql) }
            #expect(Self.ids(try await app.send("GET", query, token: token)) == [id], "a second run changes nothing")
        }
    }
}
