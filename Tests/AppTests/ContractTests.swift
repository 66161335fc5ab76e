import Fakes
import Foundation
import TestSupport
import Testing

/// What schemathesis found, each checked here directly so a regression names itself.
@Suite struct ContractTests {
    private let now = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-29

    private func post(_ influencer: Int, start: String = "2026-12-01T10:00:00+09:00", end: String = "2026-12-05T23:59:00+09:00",
                      url: String = "https://img.example/a.jpg") -> [String: any Sendable] {
        ["influencer_id": influencer, "product_name": "계약 상품", "category": "food", "group_buying_start": start,
         "group_buying_end": end, "display_url": url]
    }

    @Test func upperCaseSchemesAreStoredLowerCaseInsteadOfFailingTheTablesCheck() async throws {
        try await withTestApp(clock: TestClock(start: now)) { app async throws in
            let influencer = try await app.influencer("contract.url")
            let (_, token) = try await app.user()
            let created = try await app.send("POST", "/v1/posts", json: post(influencer, url: "HTTPS://Img.Example/A.jpg"), token: token)
            #expect(created.status == 201)  // was 500: posts_display_url_check reads ^https?://
            #expect(created.json["display_url"] as? String == "https://Img.Example/A.jpg")
            for url in ["https://img.example/a b", "ftp://img.example/a", "https://이미지.example/a", "https:///a"] {
                #expect(try await app.send("POST", "/v1/posts", json: post(influencer, url: url), token: token).status == 400, "\(url)")
            }
        }
    }

    @Test func windowsAreBoundedSoDateFiltersStayBounded() async throws {
        try await withTestApp(clock: TestClock(start: now)) { app async throws in
            let influencer = try await app.influencer("contract.window")
            let (_, token) = try await app.user()
            let tooLong = try await app.send("POST", "/v1/posts", json: post(influencer, end: "2028-01-01T00:00:00Z"), token: token)
            #expect(tooLong.status == 400 && tooLong.json["field"] as? String == "group_buying_end")
            let tooFar = try await app.send("POST", "/v1/posts", json: post(influencer, start: "2029-01-01T00:00:00Z", end: "2029-01-02T00:00:00Z"),
                                            token: token)
            #expect(tooFar.status == 400 && tooFar.json["field"] as? String == "group_buying_start")
            // RFC 3339 as the contract's format means it: odd offsets, lower-case t and z, fractions, year 1900.
            for (start, end) in [("2026-12-01t10:00:00.5z", "2026-12-02T10:00:00+20:26"), ("2026-12-01T10:00:00-23:59", "2026-12-09T00:00:00.123456Z")] {
                #expect(try await app.send("POST", "/v1/posts", json: post(influencer, start: start, end: end), token: token).status == 201, "\(start)")
            }
            #expect(try await app.send("POST", "/v1/posts", json: post(influencer, start: "1899-12-31T00:00:00Z", end: "1900-01-02T00:00:00Z"),
                                       token: token).status == 400)

            // A window stored before the limit (an import of old data): its bounds once
            // reached before year 1, and status=ongoing with a far date range answered 500.
            try await app.database.pool.withConnection { connection in
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end, posted_at)
                    VALUES (\(influencer), 'ancient', 'food', '1900-01-01T00:00:00Z', '9999-01-01T00:00:00Z', now())
                    """)
            }
            for query in ["status=ongoing&date_from=2114-03-28&date_to=3063-09-25&sort=popular", "date_from=1900-01-01&date_to=1900-01-01&sort=latest"] {
                #expect(try await app.send("GET", "/v1/posts?" + query, token: token).status == 200, "\(query)")
            }
        }
    }

    @Test func nullsAndEmptyValuesAreRefusedWhereTheContractHasNoSuchValue() async throws {
        try await withTestApp(clock: TestClock(start: now)) { app async throws in
            let (_, token) = try await app.user()
            let null = try await app.send("PATCH", "/v1/me", json: ["nickname": "새이름", "profile_url": NSNull()], token: token)
            #expect(null.status == 400 && null.json["field"] as? String == "profile_url")
            // A field the operation does not have is ignored, null or not.
            #expect(try await app.send("PATCH", "/v1/me", json: ["nickname": "새이름", "unknown": NSNull()], token: token).status == 200)
            for query in ["page=", "limit=", "category=", "status=", "sort=", "date_from=&date_to="] {
                let refused = try await app.send("GET", "/v1/posts?" + query, token: token)
                #expect(refused.status == 400, "\(query)")
            }
            // Ids go up to a bigint's maximum: beyond the 18 digits once read, 404, not 400.
            #expect(try await app.send("GET", "/v1/posts/9223372036854775807", token: token).status == 404)
            #expect(try await app.send("GET", "/v1/posts/9223372036854775808", token: token).status == 400)
        }
    }

    @Test func textRulesCountCodePointsAndRefuseControlCharacters() async throws {
        try await withTestApp(clock: TestClock(start: now)) { app async throws in
            let (_, token) = try await app.user()
            // 30 code points (15 letters + 15 combining accents) is a valid nickname.
            let accented = String(repeating: "e\u{301}", count: 15)
            #expect(try await app.send("PATCH", "/v1/me", json: ["nickname": accented], token: token).status == 200)
            #expect(try await app.send("PATCH", "/v1/me", json: ["nickname": accented + "e"], token: token).status == 400)
            for nickname in ["a\u{0}b", "tab\there", "   "] {
                #expect(try await app.send("PATCH", "/v1/me", json: ["nickname": nickname], token: token).status == 400, "\(nickname.debugDescription)")
            }
            for email in ["kim@example.com", " Kim@Example.com\t"] {
                let signUp = try await app.send("POST", "/v1/auth/signup", json: ["email": email, "password": "long enough"])
                #expect(signUp.status == 201 || signUp.errorCode == "email_taken", "\(email.debugDescription)")
            }
            for email in ["김@example.com", "a b@example.com", "a@example", "a@.example.com", "a@example.com."] {
                #expect(try await app.send("POST", "/v1/auth/signup", json: ["email": email, "password": "long enough"]).status == 400, "\(email)")
            }
        }
    }
}
