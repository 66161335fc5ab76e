import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Rate limits on the auth endpoints.
@Suite struct AuthAbuseTests {
    @Test func anonymousSignUpsAreLimitedPerClientAddress() async throws {
        try await withTestApp(configure: { $0.anonymousSignUps = .init(count: 2, per: 3600) }) { app async throws in
            for _ in 0..<2 { #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "198.51.100.1").status == 201) }

            let limited = try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "198.51.100.1")
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate_limited")
            #expect(limited.header("Retry-After") == "3600")
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "198.51.100.2").status == 201)

            app.clock.advance(by: 3600)
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "198.51.100.1").status == 201)
        }
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() async throws {
        try await withTestApp(configure: {
            $0.anonymousSignUps = .init(count: 1, per: 3600)
            $0.trustedProxies = ["10.0.0.5"]
        }) { app async throws in
            // Through the trusted proxy, each forwarded client has its own budget.
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: [("X-Forwarded-For", "192.0.2.1")], remoteAddress: "10.0.0.5").status == 201)
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: [("X-Forwarded-For", "192.0.2.2")], remoteAddress: "10.0.0.5").status == 201)
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: [("X-Forwarded-For", "192.0.2.1")], remoteAddress: "10.0.0.5").status == 429)
            // A direct client cannot escape its limit by claiming another address.
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: [("X-Forwarded-For", "192.0.2.9")], remoteAddress: "203.0.113.50").status == 201)
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: [("X-Forwarded-For", "192.0.2.10")], remoteAddress: "203.0.113.50").status == 429)
        }
    }

    @Test func theTokenEndpointIsLimitedPerClientAddress() async throws {
        try await withTestApp(configure: { $0.tokenRequests = .init(count: 3, per: 300) }) { app async throws in
            for _ in 0..<3 {
                #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": "x"]).status == 401)
            }
            let limited = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": "x"])
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "300")
        }
    }

    @Test func failedPasswordSignInsAreLimitedPerEmail() async throws {
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 3, per: 900) }) { app async throws in
            _ = try await app.send("POST", "/v1/auth/signup", json: ["email": "target@example.com", "password": "the-real-one"])
            for address in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
                #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com", "password": "wrong-guess"], remoteAddress: address).errorCode == "invalid_credentials")
            }
            // Even the right password waits now: the limit protects the account, not the guesser.
            let limited = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "Target@example.com", "password": "the-real-one"], remoteAddress: "198.51.100.4")
            #expect(limited.status == 429)
            #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "other@example.com", "password": "wrong-guess"]).errorCode == "invalid_credentials")

            app.clock.advance(by: 900)
            #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com", "password": "the-real-one"]).status == 200)
        }
    }
}

/// Which client a request counts against: IPv6 by /64, forwarded chains across all lines.
@Suite struct ClientAddressTests {
    @Test func ipv6ClientsShareOneBudgetPerSlash64() async throws {
        try await withTestApp(configure: { $0.anonymousSignUps = .init(count: 1, per: 3600) }) { app async throws in
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "2001:db8:1:2::1").status == 201)
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "2001:db8:1:2:ffff:ee:dd:5").status == 429)
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "2001:db8:1:3::1").status == 201)
            // IPv4 keeps one budget per address, also when written IPv4-mapped.
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "192.0.2.1").status == 201)
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "::ffff:192.0.2.1").status == 429)
            #expect(try await app.send("POST", "/v1/auth/anonymous", remoteAddress: "192.0.2.2").status == 201)
        }
    }

    @Test func forwardedForIsReadAcrossEveryHeaderLine() async throws {
        try await withTestApp(configure: {
            $0.anonymousSignUps = .init(count: 1, per: 3600)
            $0.trustedProxies = ["10.0.0.5"]
        }) { app async throws in
            // The client sends a line of its own; the proxy appends the address it saw on
            // another line. The client is the right-most untrusted entry of the whole list.
            let first = [("X-Forwarded-For", "192.0.2.1"), ("X-Forwarded-For", "203.0.113.9")]
            let second = [("X-Forwarded-For", "192.0.2.2"), ("X-Forwarded-For", "203.0.113.9")]
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: first, remoteAddress: "10.0.0.5").status == 201)
            #expect(try await app.send("POST", "/v1/auth/anonymous", headers: second, remoteAddress: "10.0.0.5").status == 429)
        }
    }
}
