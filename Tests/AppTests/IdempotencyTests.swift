import Fakes
import Foundation
import TestSupport
import Testing

/// `Idempotency-Key` on `POST /v1/posts`: a retry gets the first answer and creates nothing.
@Suite struct IdempotencyTests {
    private static let start = Date(timeIntervalSince1970: 1_796_000_000)

    private func post(_ influencer: Int, name: String) -> [String: any Sendable] {
        ["influencer_id": influencer, "product_name": name, "price": 9_900, "category": "food",
         "group_buying_start": "2026-12-01T10:00:00+09:00", "group_buying_end": "2026-12-05T23:59:00+09:00"]
    }

    private func count(_ app: TestApp) async throws -> Int {
        try await app.database.pool.withConnection { try $0.query("SELECT count(*)::int FROM posts").first!.decode(0) }
    }

    @Test func aRetryWithTheSameKeyGetsTheFirstAnswerAndCreatesNothing() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 3 * 86_400 }, clock: TestClock(start: Self.start)) { app async throws in
            let influencer = try await app.influencer("idem.seller")
            let (_, token) = try await app.user()
            let (_, other) = try await app.user()
            let body = post(influencer, name: "사과즙")
            let key = [("Idempotency-Key", "7d3c6a52-0a3b-4c1e-9f7e-1b2c3d4e5f60")]

            let first = try await app.send("POST", "/v1/posts", json: body, token: token, headers: key)
            #expect(first.status == 201 && first.header("Idempotent-Replayed") == nil)
            let retry = try await app.send("POST", "/v1/posts", json: body, token: token, headers: key)
            #expect(retry.status == 201 && retry.header("Idempotent-Replayed") == "true", "\(retry.text)")
            #expect(retry.response.body == first.response.body)
            #expect(try await count(app) == 1)

            // The same key for another request is refused; another user's key space is their own.
            let reused = try await app.send("POST", "/v1/posts", json: post(influencer, name: "배즙"), token: token, headers: key)
            #expect(reused.status == 422 && reused.errorCode == "idempotency_key_reused")
            #expect(try await app.send("POST", "/v1/posts", json: post(influencer, name: "배즙"), token: other, headers: key).status == 201)
            // Without a key a retry is a duplicate, refused by the posts' own rule.
            #expect(try await app.send("POST", "/v1/posts", json: body, token: token).errorCode == "post.conflict")

            // A failed request releases its key: the corrected request runs under it.
            let failedKey = [("Idempotency-Key", "second-try")]
            var broken = post(influencer, name: "포도즙")
            broken["price"] = -1
            #expect(try await app.send("POST", "/v1/posts", json: broken, token: token, headers: failedKey).status == 400)
            #expect(try await app.send("POST", "/v1/posts", json: post(influencer, name: "포도즙"), token: token, headers: failedKey).status == 201)

            // After 24 hours the key is free again.
            app.clock.advance(by: 86_400 + 1)
            let later = try await app.send("POST", "/v1/posts", json: post(influencer, name: "귤즙"), token: token, headers: key)
            #expect(later.status == 201 && later.header("Idempotent-Replayed") == nil)

            for bad in ["", String(repeating: "k", count: 256), "has space", "키"] {
                let refused = try await app.send("POST", "/v1/posts", json: post(influencer, name: "x"), token: token, headers: [("Idempotency-Key", bad)])
                #expect(refused.status == 400 && refused.json["field"] as? String == "Idempotency-Key", "\(bad)")
            }
        }
    }

    @Test func concurrentRetriesCreateOnePost() async throws {
        try await withTestApp(clock: TestClock(start: Self.start)) { app async throws in
            let influencer = try await app.influencer("idem.burst")
            let (_, token) = try await app.user()
            let body = post(influencer, name: "동시 요청")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await app.send("POST", "/v1/posts", json: body, token: token, headers: [("Idempotency-Key", "burst")]).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(try await count(app) == 1)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 409 } && statuses.contains(201), "\(statuses)")
        }
    }
}
