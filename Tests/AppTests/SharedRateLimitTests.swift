import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// The limits that protect accounts hold across instances: two `market09` processes over
/// one database give a guesser one budget, not two.
@Suite struct SharedRateLimitTests {
    @Test func failedPasswordsPerEmailAreCountedAcrossInstances() async throws {
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 4, per: 900) }) { first async throws in
            try await first.withSibling { second async throws in
                #expect(try await first.send("POST", "/v1/auth/signup", json: ["email": "target@example.com", "password": "the-real-one"],
                                             remoteAddress: "192.0.2.200").status == 201)
                func guess(_ app: TestApp, _ index: Int) async throws -> TestResponse {
                    try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com", "password": "guess-\(index)"],
                                       remoteAddress: "198.51.100.\(index)")
                }
                // Four guesses, alternating instances: each instance alone has seen only two.
                for index in 0..<4 { #expect(try await guess(index.isMultiple(of: 2) ? first : second, index).errorCode == "invalid_credentials") }
                let refused = try await guess(second, 4)
                #expect(refused.status == 429)
                #expect(Int(refused.header("Retry-After") ?? "") ?? 0 > 890)
                #expect(try await guess(first, 5).status == 429)
                // The right password is refused too while the budget is spent (it is the email's),
                // and the window's end frees it on every instance.
                first.clock.advance(by: 901)
                let right = try await second.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com",
                                                                                "password": "the-real-one"], remoteAddress: "198.51.100.9")
                #expect(right.status == 200)
            }
        }
    }

    @Test func tokenCallsAndSignUpsPerAddressAreCountedAcrossInstances() async throws {
        try await withTestApp(configure: {
            $0.tokenRequests = .init(count: 3, per: 300)
            $0.anonymousSignUps = .init(count: 2, per: 3600)
        }) { first async throws in
            try await first.withSibling { second async throws in
                let refresh = ["grant_type": "refresh_token", "refresh_token": "not-a-token"]
                for app in [first, second, first] { #expect(try await app.send("POST", "/v1/auth/token", json: refresh).status == 401) }
                #expect(try await second.send("POST", "/v1/auth/token", json: refresh).status == 429)
                #expect(try await first.send("POST", "/v1/auth/anonymous").status == 201)
                #expect(try await second.send("POST", "/v1/auth/anonymous").status == 201)
                #expect(try await first.send("POST", "/v1/auth/anonymous").status == 429)
                // Another address keeps its own budget.
                #expect(try await second.send("POST", "/v1/auth/anonymous", remoteAddress: "203.0.113.8").status == 201)
            }
        }
    }

    @Test func aRefusedEventIsNotCountedAndAGivenBackOneIsFreed() async throws {
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 2, per: 900) }) { first async throws in
            try await first.withSibling { second async throws in
                #expect(try await first.send("POST", "/v1/auth/signup", json: ["email": "owner@example.com", "password": "right-password"]).status == 201)
                let right = ["grant_type": "password", "email": "owner@example.com", "password": "right-password"]
                // Right passwords give their reservation back: any number of sign-ins pass.
                for app in [first, second, first, second, first] { #expect(try await app.send("POST", "/v1/auth/token", json: right).status == 200) }
                let count: Int = try await first.database.pool.withConnection { connection in
                    try connection.query("SELECT coalesce(sum(count), -1)::int FROM rate_limit_windows WHERE key = 'pw-email:owner@example.com'").first!.decode(0)
                }
                #expect(count == 0, "the window exists and holds no event")
            }
        }
    }
}
