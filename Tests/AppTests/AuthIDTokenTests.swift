import App
import Domain
import Foundation
import HTTPServer
import Persistence
import TestSupport
import Testing

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

    /// Before: a Google sign-in kept no name and no picture, `/functions/v1/me` and `/v1/me`
    /// showed none, and the auth answers carried empty `user_metadata` and `identities`.
    @Test func aGoogleSignInFillsTheProfileFromTheTokenButNeverOverTheUsersOwn() async throws {
        let provider = try await TestIdentityProvider.make()
        let app = try await app(provider)
        let apikey = [("apikey", TestApp.anonKey)]
        func signIn(name: String, picture: String) async throws -> TestResponse {
            let token = try await googleToken(provider, subject: "google-profile") { $0["name"] = name; $0["picture"] = picture }
            return try await app.send("POST", "/auth/v1/token?grant_type=id_token", json: ["provider": "google", "id_token": token], headers: apikey)
        }
        let first = try await signIn(name: "  김민지  ", picture: "https://lh3.googleusercontent.com/a/minji")
        #expect(first.status == 200)
        let user = try #require(first.json["user"] as? [String: any Sendable])
        let metadata = try #require(user["user_metadata"] as? [String: any Sendable])
        #expect(metadata["full_name"] as? String == "김민지" && metadata["name"] as? String == "김민지")
        #expect(metadata["avatar_url"] as? String == "https://lh3.googleusercontent.com/a/minji" && metadata["picture"] as? String == metadata["avatar_url"] as? String)
        #expect(metadata["sub"] as? String == "google-profile" && metadata["email"] as? String == "g.user@gmail.com")
        let appMetadata = try #require(user["app_metadata"] as? [String: any Sendable])
        #expect(appMetadata["provider"] as? String == "google" && appMetadata["providers"] as? [String] == ["google"])
        let identities = try #require(user["identities"] as? [[String: any Sendable]])
        #expect(identities.count == 1 && identities[0]["provider"] as? String == "google" && identities[0]["id"] as? String == "google-profile")
        #expect(identities[0]["user_id"] as? String == user["id"] as? String && (identities[0]["identity_data"] as? [String: any Sendable])?["name"] as? String == "김민지")
        let session = try TestSession(first)
        let me = try await app.send("GET", "/functions/v1/me", token: session.accessToken, headers: apikey)
        #expect(me.json["nickname"] as? String == "김민지" && me.json["profile_url"] as? String == "https://lh3.googleusercontent.com/a/minji")
        #expect(try await app.send("GET", "/v1/me", token: session.accessToken).json["nickname"] as? String == "김민지")

        // The user picks another nickname; a later sign-in brings a new Google name and
        // picture: the identity keeps them, the user's own nickname stays.
        #expect(try await app.send("PATCH", "/v1/me", json: ["nickname": "공구요정"], token: session.accessToken).status == 200)
        let later = try await signIn(name: "Minji Kim", picture: "https://lh3.googleusercontent.com/a/minji-2")
        let laterUser = try #require(later.json["user"] as? [String: any Sendable])
        #expect((laterUser["user_metadata"] as? [String: any Sendable])?["full_name"] as? String == "Minji Kim")
        let again = try await app.send("GET", "/functions/v1/me", token: try TestSession(later).accessToken, headers: apikey)
        #expect(again.json["nickname"] as? String == "공구요정" && again.json["profile_url"] as? String == "https://lh3.googleusercontent.com/a/minji")
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
