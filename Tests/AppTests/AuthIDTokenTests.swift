import App
import Data
import Domain
import Foundation
import Testing
import TestSupport

/// Google / Apple sign-in with RS256 ID tokens, verified by the production verifier
/// against a JWKS file of a test provider.
@Suite struct AuthIDTokenTests {
    private static let clientID = "com.09market.app"

    private func app(_ provider: TestIdentityProvider) async throws -> TestApp {
        try await TestApp.make {
            $0.googleClientIDs = [Self.clientID]
            $0.googleJWKS = .file(provider.jwksPath)
        }
    }

    private func googleToken(_ provider: TestIdentityProvider, subject: String, nonce: String? = nil, change: (inout [String: any Sendable]) -> Void = { _ in }) async throws -> String {
        var claims = TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: Self.clientID, subject: subject, email: "G.User@Gmail.com", nonce: nonce)
        change(&claims)
        return try await provider.idToken(claims: claims)
    }

    @Test func aGoogleIDTokenSignsInTheSameUserEveryTime() async throws {
        let provider = try await TestIdentityProvider.make()
        let app = try await app(provider)
        let token = try await googleToken(provider, subject: "google-sub-1", nonce: "raw-nonce")

        let first = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "id_token", "provider": "google", "id_token": token, "nonce": "raw-nonce"])
        #expect(first.status == 200)
        let user = try #require(first.json["user"] as? [String: any Sendable])
        #expect(user["provider"] as? String == "google")
        #expect(user["email"] as? String == "g.user@gmail.com")
        #expect(user["is_anonymous"] as? Bool == false)

        let second = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "id_token", "provider": "google", "id_token": try await googleToken(provider, subject: "google-sub-1")])
        #expect(try TestSession(second).userID == (try TestSession(first)).userID)
        await app.close()
    }

    @Test func badIDTokensAreRefused() async throws {
        let provider = try await TestIdentityProvider.make()
        let stranger = try await TestIdentityProvider.make()
        let app = try await app(provider)
        let now = Int(Date().timeIntervalSince1970)
        let cases: [(String, String, String?)] = [
            ("wrong audience", try await googleToken(provider, subject: "s") { $0["aud"] = "com.other.app" }, nil),
            ("wrong issuer", try await googleToken(provider, subject: "s") { $0["iss"] = "https://evil.example" }, nil),
            ("expired", try await googleToken(provider, subject: "s") { $0["exp"] = now - 600 }, nil),
            ("nonce mismatch", try await googleToken(provider, subject: "s", nonce: "expected"), "different"),
            ("nonce missing from request", try await googleToken(provider, subject: "s", nonce: "expected"), nil),
            ("signed by another key", try await stranger.idToken(claims: TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: Self.clientID, subject: "s"), kid: provider.keyID), nil),
            ("unknown kid", try await stranger.idToken(claims: TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: Self.clientID, subject: "s")), nil),
            ("not a JWT", "abc", nil),
            // Several audiences: the token was issued to the party named by azp, which must be us.
            ("several audiences, no azp", try await googleToken(provider, subject: "s") { $0["aud"] = [Self.clientID, "com.other.app"] }, nil),
            ("several audiences, azp another app", try await googleToken(provider, subject: "s") {
                $0["aud"] = [Self.clientID, "com.other.app"]
                $0["azp"] = "com.other.app"
            }, nil),
        ]
        for (name, token, nonce) in cases {
            var body: [String: any Sendable] = ["grant_type": "id_token", "provider": "google", "id_token": token]
            if let nonce { body["nonce"] = nonce }
            let response = try await app.send("POST", "/v1/auth/token", json: body)
            #expect(response.status == 401, "\(name): \(response.text)")
            #expect(response.errorCode == "invalid_token", "\(name)")
        }
        await app.close()
    }

    @Test func severalAudiencesAreAcceptedWhenAzpIsThisApp() async throws {
        let provider = try await TestIdentityProvider.make()
        let app = try await app(provider)
        let token = try await googleToken(provider, subject: "multi") {
            $0["aud"] = [Self.clientID, "com.other.app"]
            $0["azp"] = Self.clientID
        }
        #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "id_token", "provider": "google", "id_token": token]).status == 200)
        await app.close()
    }

    @Test func anUnconfiguredProviderIsDisabled() async throws {
        let provider = try await TestIdentityProvider.make()
        let app = try await app(provider)
        let response = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "id_token", "provider": "apple", "id_token": "x.y.z"])
        #expect(response.status == 400)
        #expect(response.errorCode == "provider_disabled")
        await app.close()
    }

    @Test func anAnonymousUserUpgradesWithAGoogleIDTokenOrMergesIntoItsAccount() async throws {
        let provider = try await TestIdentityProvider.make()
        let app = try await app(provider)
        let anonymous = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
        let upgraded = try await app.send("POST", "/v1/auth/upgrade", json: ["provider": "google", "id_token": try await googleToken(provider, subject: "upgrade-sub")], token: anonymous.accessToken)
        #expect(try TestSession(upgraded).userID == anonymous.userID)

        let another = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
        let conflict = try await app.send("POST", "/v1/auth/upgrade", json: ["provider": "google", "id_token": try await googleToken(provider, subject: "upgrade-sub")], token: another.accessToken)
        #expect(conflict.errorCode == "identity_exists")
        let merged = try await app.send("POST", "/v1/auth/upgrade", json: ["provider": "google", "id_token": try await googleToken(provider, subject: "upgrade-sub"), "merge": true], token: another.accessToken)
        #expect(try TestSession(merged).userID == anonymous.userID)
        await app.close()
    }
}
