import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// `/auth/v1`: the Supabase Auth subset, in process. The official Python client runs the
/// same flows against a live server in SupabaseClientTests.
@Suite struct SupabaseAuthCompatTests {
    static let apikey = [("apikey", TestApp.anonKey)]

    @Test func theAnonKeyIsRequiredAsSupabasesGatewayRequiresIt() async throws {
        try await withTestApp { app async throws in
            let missing = try await app.send("POST", "/auth/v1/signup", json: [:])
            #expect(missing.status == 401)
            #expect(missing.json["message"] as? String == "No API key found in request")
            let wrong = try await app.send("POST", "/auth/v1/signup", json: [:], headers: [("apikey", "another-projects-key-0123")])
            #expect(wrong.status == 401)
            #expect(wrong.json["message"] as? String == "Invalid API key")
            let (_, token) = try await app.user()
            #expect(try await app.send("GET", "/functions/v1/posts?action=top10", token: token).status == 401)
            #expect(try await app.send("GET", "/rest/v1/likes", token: token).status == 401)
            #expect(try await app.send("GET", "/functions/v1/posts?action=top10", token: token, headers: Self.apikey).status == 200)
        }
    }

    @Test func anAnonymousSessionHasTheShapeSupabasesClientsDecode() async throws {
        try await withTestApp { app async throws in
            let signup = try await app.send("POST", "/auth/v1/signup", json: ["data": [String: String](), "gotrue_meta_security": ["captcha_token": NSNull()]],
                                            headers: Self.apikey)
            #expect(signup.status == 200)
            #expect(signup.header("X-Supabase-Api-Version") == "2024-01-01")
            #expect(signup.json["token_type"] as? String == "bearer")
            #expect(signup.json["expires_in"] as? Int == app.auth.accessTokenLifetime)
            let expiresAt = try #require(signup.json["expires_at"] as? Int)
            #expect(abs(expiresAt - Int(app.clock.now.timeIntervalSince1970) - app.auth.accessTokenLifetime) <= 1)
            let user = try #require(signup.json["user"] as? [String: any Sendable])
            #expect(UUID(uuidString: user["id"] as? String ?? "") != nil)
            #expect(user["aud"] as? String == "authenticated")
            #expect(user["role"] as? String == "authenticated")
            #expect(user["app_metadata"] is [String: any Sendable])
            #expect(user["user_metadata"] is [String: any Sendable])
            #expect((user["identities"] as? [Any])?.isEmpty == true)
            #expect(user["is_anonymous"] as? Bool == true)
            #expect(user["created_at"] as? String == user["updated_at"] as? String)

            // An empty body is an anonymous sign-up too; the session works on /v1 and here.
            #expect(try await app.send("POST", "/auth/v1/signup", headers: Self.apikey).status == 200)
            let session = try TestSession(signup)
            let me = try await app.send("GET", "/auth/v1/user", token: session.accessToken, headers: Self.apikey)
            #expect(me.json["id"] as? String == session.userID)
            #expect(try await app.send("GET", "/v1/me", token: session.accessToken).status == 204)
        }
    }

    @Test func refreshRotatesAndAReusedTokenIsRefusedInSupabasesWords() async throws {
        try await withTestApp { app async throws in
            let first = try TestSession(try await app.send("POST", "/auth/v1/signup", headers: Self.apikey))
            let refreshed = try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": first.refreshToken], headers: Self.apikey)
            #expect(refreshed.status == 200)
            let second = try TestSession(refreshed)
            #expect(second.userID == first.userID && second.refreshToken != first.refreshToken)
            // GoTrue's rule: the parent of the active token gets the active pair back, at any time.
            app.clock.advance(by: 3_000)
            let parent = try TestSession(try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": first.refreshToken],
                                                           headers: Self.apikey))
            #expect(parent.refreshToken == second.refreshToken && parent.accessToken == second.accessToken)
            // An older token, past the reuse interval, is reuse.
            let third = try TestSession(try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": second.refreshToken],
                                                          headers: Self.apikey))
            app.clock.advance(by: app.auth.sessions.refreshGrace + 1)
            let reused = try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": first.refreshToken], headers: Self.apikey)
            #expect(reused.status == 400)
            #expect(reused.json["code"] as? String == "refresh_token_already_used")
            #expect(reused.json["error_code"] as? String == "refresh_token_already_used")
            #expect(reused.header("X-Supabase-Api-Version") == "2024-01-01")
            // The reuse revoked the session: its newest token is gone too.
            let after = try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": third.refreshToken], headers: Self.apikey)
            #expect(after.json["code"] as? String == "refresh_token_not_found")
            let unknown = try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": "nonsense"], headers: Self.apikey)
            #expect(unknown.status == 400)
            #expect(unknown.json["code"] as? String == "refresh_token_not_found")
        }
    }

    @Test func updateUserMakesTheAnonymousUserPermanentKeepingIdAndSession() async throws {
        try await withTestApp { app async throws in
            let anonymous = try TestSession(try await app.send("POST", "/auth/v1/signup", headers: Self.apikey))
            let updated = try await app.send("PUT", "/auth/v1/user", json: ["email": "Mina@Example.com", "password": "a long enough password"],
                                             token: anonymous.accessToken, headers: Self.apikey)
            #expect(updated.status == 200)
            #expect(updated.json["id"] as? String == anonymous.userID)
            #expect(updated.json["email"] as? String == "mina@example.com")
            #expect(updated.json["is_anonymous"] as? Bool == false)
            // The same session goes on; its next refresh carries the permanent user.
            #expect(try await app.send("GET", "/auth/v1/user", token: anonymous.accessToken, headers: Self.apikey).status == 200)
            let refreshed = try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": anonymous.refreshToken], headers: Self.apikey)
            #expect((refreshed.json["user"] as? [String: any Sendable])?["is_anonymous"] as? Bool == false)
            let permanent = try TestSession(refreshed)
            #expect(try await app.send("GET", "/functions/v1/me", token: permanent.accessToken, headers: Self.apikey).status == 200)

            // Password sign-in, wrong password, a taken email.
            let signIn = try await app.send("POST", "/auth/v1/token?grant_type=password", json: ["email": "mina@example.com", "password": "a long enough password"],
                                            headers: Self.apikey)
            #expect(try TestSession(signIn).userID == anonymous.userID)
            let wrong = try await app.send("POST", "/auth/v1/token?grant_type=password", json: ["email": "mina@example.com", "password": "not it at all"],
                                           headers: Self.apikey)
            #expect(wrong.status == 400 && wrong.json["code"] as? String == "invalid_credentials")
            let taken = try await app.send("POST", "/auth/v1/signup", json: ["email": "mina@example.com", "password": "another long password"], headers: Self.apikey)
            #expect(taken.status == 422 && taken.json["code"] as? String == "user_already_exists")
            let other = try TestSession(try await app.send("POST", "/auth/v1/signup", headers: Self.apikey))
            let linkTaken = try await app.send("PUT", "/auth/v1/user", json: ["email": "mina@example.com", "password": "a long enough password"],
                                               token: other.accessToken, headers: Self.apikey)
            #expect(linkTaken.status == 422 && linkTaken.json["code"] as? String == "identity_already_exists")
        }
    }

    @Test func anIDTokenWithLinkIdentityUpgradesTheAnonymousCaller() async throws {
        let provider = try await TestIdentityProvider.make()
        try await withTestApp(configure: {
            $0.googleClientIDs = ["com.09market.app"]
            $0.googleJWKS = .file(provider.jwksPath)
        }) { app async throws in
            let anonymous = try TestSession(try await app.send("POST", "/auth/v1/signup", headers: Self.apikey))
            let claims = TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: "com.09market.app", subject: "g-link", email: "link@gmail.com")
            let linked = try await app.send("POST", "/auth/v1/token?grant_type=id_token", json: [
                "provider": "google", "id_token": try await provider.idToken(claims: claims), "access_token": NSNull(), "nonce": NSNull(),
                "link_identity": true,
            ], token: anonymous.accessToken, headers: Self.apikey)
            #expect(linked.status == 200)
            let session = try TestSession(linked)
            #expect(session.userID == anonymous.userID)
            #expect((linked.json["user"] as? [String: any Sendable])?["is_anonymous"] as? Bool == false)
            // Without link_identity the same identity signs in to that user.
            let again = try await app.send("POST", "/auth/v1/token?grant_type=id_token",
                                           json: ["provider": "google", "id_token": try await provider.idToken(claims: claims)], headers: Self.apikey)
            #expect(try TestSession(again).userID == anonymous.userID)

            // Logout (global): every session ends; the clients then see session_not_found.
            #expect(try await app.send("POST", "/auth/v1/logout?scope=global", token: session.accessToken, headers: Self.apikey).status == 204)
            let gone = try await app.send("GET", "/auth/v1/user", token: session.accessToken, headers: Self.apikey)
            #expect(gone.status == 403 && gone.json["code"] as? String == "session_not_found")
            let settings = try await app.send("GET", "/auth/v1/settings", headers: Self.apikey)
            #expect((settings.json["external"] as? [String: any Sendable])?["google"] as? Bool == true)
            #expect((try await app.send("GET", "/auth/v1/.well-known/jwks.json", headers: Self.apikey).json["keys"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func expiredAndForgedTokensAreBadJWTs() async throws {
        try await withTestApp { app async throws in
            let session = try TestSession(try await app.send("POST", "/auth/v1/signup", headers: Self.apikey))
            app.clock.advance(by: Double(app.auth.accessTokenLifetime) + 120)
            let expired = try await app.send("GET", "/auth/v1/user", token: session.accessToken, headers: Self.apikey)
            #expect(expired.status == 403 && expired.json["code"] as? String == "bad_jwt")
            let none = try await app.send("GET", "/auth/v1/user", headers: Self.apikey)
            #expect(none.status == 401 && none.json["code"] as? String == "no_authorization")
        }
    }

    /// Bodies are parsed once, linearly: 400 nested arrays (the most a body may nest is
    /// 512) cost 1.1 s of CPU when each level tried every JSON type in turn.
    @Test func deeplyNestedAndOddlyTypedBodiesAreReadStrictly() async throws {
        try await withTestApp { app async throws in
            let nested = "{\"data\": " + String(repeating: "[", count: 400) + String(repeating: "]", count: 400) + "}"
            let deep = try await app.send("POST", "/auth/v1/signup", body: Data(nested.utf8), headers: Self.apikey + [("Content-Type", "application/json")])
            #expect(deep.status == 200)
            let tooDeep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
            let refused = try await app.send("POST", "/auth/v1/signup", body: Data(tooDeep.utf8), headers: Self.apikey + [("Content-Type", "application/json")])
            #expect(refused.status == 400 && refused.json["code"] as? String == "validation_failed")
            let (_, token) = try await app.user()
            let kim = try await app.influencer("kim.deals")
            let post = try await app.post(influencer: kim, name: "크림", start: "2026-01-01T00:00:00Z", end: "2027-01-01T00:00:00Z")
            // true is not 1, 1.5 is not an id, a big id stays exact.
            for body in [#"{"post_id": true}"#, #"{"post_id": 1.5}"#, #"{"post_id": 999999999999999999}"#] {
                let answer = try await app.send("POST", "/rest/v1/likes", body: Data(body.utf8), token: token, headers: Self.apikey + [("Content-Type", "application/json")])
                #expect([400, 409].contains(answer.status), "\(body): \(answer.text)")
            }
            let liked = try await app.send("POST", "/rest/v1/likes", body: Data(#"{"post_id": \#(post)}"#.utf8), token: token,
                                           headers: Self.apikey + [("Content-Type", "application/json")])
            #expect(liked.status == 201)
        }
    }
}
