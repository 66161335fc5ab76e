@testable import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import TestSupport
import Testing

/// Access-token verification and refresh-token rotation.
@Suite struct AuthTokenTests {
    @Test func everyUnauthorizedAnswerSaysWhyInBodyAndHeader() async throws {
        try await withTestApp { app async throws in
            let missing = try await app.send("GET", "/v1/me")
            #expect(missing.status == 401)
            #expect(missing.errorCode == "missing_token")
            #expect(missing.header("WWW-Authenticate")?.hasPrefix(#"Bearer realm="market09", error="missing_token""#) == true)

            let garbage = try await app.send("GET", "/v1/me", token: "not.a.jwt")
            #expect(garbage.errorCode == "invalid_token")
            #expect(garbage.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        }
    }

    @Test func theBearerSchemeIsCaseInsensitiveAndSpacesAroundTheTokenAreIgnored() async throws {
        try await withTestApp { app async throws in
            let session = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            for value in ["Bearer \(session.accessToken)", "bearer \(session.accessToken)", "BEARER   \(session.accessToken) \t"] {
                #expect(try await app.send("GET", "/v1/me", headers: [("Authorization", value)]).status == 204, "\(value)")
            }
            for value in ["Basic \(session.accessToken)", "Bearer", "Bearer ", "Bearer\(session.accessToken)", "Bearers \(session.accessToken)"] {
                #expect(try await app.send("GET", "/v1/me", headers: [("Authorization", value)]).errorCode == "invalid_token", "\(value)")
            }
        }
    }

    @Test func forgedTokensAreRefused() async throws {
        try await withTestApp { app async throws in
            let session = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            let parts = session.accessToken.split(separator: ".").map(String.init)
            let now = Int(app.clock.now.timeIntervalSince1970)
            let claims = AccessTokenClaims(iss: "market09", aud: "market09-app", sub: session.userID, sid: UUID().uuidString.lowercased(),
                                           role: "admin", isAnonymous: false, iat: now, exp: now + 60)
            let ownCodec = AccessTokenCodec(keys: [AuthSettings.key(secret: TestApp.secret)], issuer: "market09", audience: "market09-app")
            let unknownUser = ownCodec.sign(with(claims) { $0.sub = UUID().uuidString.lowercased() })
            #expect(try await app.send("GET", "/v1/me", token: unknownUser).errorCode == "session_revoked", "a genuine signature for no user")
            let noneHeader = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            let payload = Base64URL.encode(try JSONEncoder().encode(claims))
            let forged: [String: String] = [
                "tampered payload": parts[0] + "." + payload + "." + parts[2],
                "alg none": noneHeader + "." + payload + ".",
                "other key": AccessTokenCodec(keys: [AuthSettings.key(secret: String(repeating: "x", count: 40))], issuer: "market09", audience: "market09-app").sign(claims),
                "same key, unknown kid": AccessTokenCodec(keys: [SigningKey(id: "rogue", secret: Array(TestApp.secret.utf8))], issuer: "market09", audience: "market09-app").sign(claims),
                "wrong audience": ownCodec.sign(with(claims) { $0.aud = "other-app" }),
                "wrong issuer": ownCodec.sign(with(claims) { $0.iss = "evil" }),
                "issued in the future": ownCodec.sign(with(claims) { $0.iat = now + 3600; $0.exp = now + 7200 }),
            ]
            let injected = Base64URL.encode(Data(#"{"alg":"x\", error=\"forged","typ":"JWT"}"#.utf8)) + "." + payload + "."
            for (name, token) in forged.merging(["alg chosen by the client": injected], uniquingKeysWith: { $1 }) {
                let response = try await app.send("GET", "/v1/me", token: token)
                #expect(response.status == 401, "\(name): \(response.text)")
                #expect(response.errorCode == "invalid_token", "\(name)")
                // Nothing of the token's own content is echoed into headers or the body.
                let challenge = response.header("WWW-Authenticate") ?? ""
                #expect(!challenge.contains("none") && !challenge.contains("forged"), "\(name): \(challenge)")
                #expect(!response.text.contains("forged"), "\(name): \(response.text)")
            }
        }
    }

    @Test func anExpiredAccessTokenAnswersTokenExpired() async throws {
        try await withTestApp { app async throws in
            let session = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            app.clock.advance(by: 3599)
            #expect(try await app.send("GET", "/v1/me", token: session.accessToken).status == 204)

            app.clock.advance(by: 1)
            let expired = try await app.send("GET", "/v1/me", token: session.accessToken)
            #expect(expired.status == 401)
            #expect(expired.errorCode == "token_expired")
            #expect(expired.header("WWW-Authenticate")?.contains(#"error="token_expired""#) == true)
        }
    }

    @Test func authenticatedTokensAreBoundedAndRefusalsAreNotRemembered() throws {
        let tokens = AuthenticatedTokens(capacity: 3)
        let principal = Principal(userID: UserID(rawValue: UUID()), sessionID: SessionID(rawValue: UUID()), role: .user, isAnonymous: true)
        let entry = AuthenticatedTokens.Entry(
            claims: AccessTokenClaims(iss: "i", aud: "a", sub: "s", sid: "d", role: "user", isAnonymous: true, iat: 0, exp: 1), principal: principal)
        let live = AuthenticatedTokens.Entry(
            claims: AccessTokenClaims(iss: "i", aud: "a", sub: "s", sid: "d", role: "user", isAnonymous: true, iat: 0, exp: 2_000_000_000), principal: principal)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var calls = 0
        for token in ["a", "b", "a", "c"] { _ = try tokens.entry(for: token, now: now) { calls += 1; return entry } }
        #expect(calls == 3, "a second use of a token is answered from memory")
        #expect(tokens.count == 3)
        _ = try tokens.entry(for: "d", now: now) { live }
        #expect(tokens.count == 1, "reaching the capacity drops the expired tokens")
        _ = try tokens.entry(for: "e", now: now) { live }
        _ = try tokens.entry(for: "f", now: now) { live }
        _ = try tokens.entry(for: "g", now: now) { live }
        #expect(tokens.count == 1, "full of live tokens, the map is cleared")
        #expect(throws: AuthError.self) { try tokens.entry(for: "bad", now: now) { throw AuthError.invalidToken("no") } }
        #expect(throws: AuthError.self) { try tokens.entry(for: "bad", now: now) { throw AuthError.invalidToken("no") } }
        #expect(tokens.count == 1)
    }

    @Test func tokensSignedWithAPreviousKeyAreAcceptedAfterRotation() async throws {
        let oldSecret = "old-secret-0123456789-0123456789-abcdef"
        try await withTestApp(configure: { $0.signingKeys = [AuthSettings.key(secret: TestApp.secret), AuthSettings.key(secret: oldSecret)] }) { app async throws in
            let session = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            let claims = try AccessTokenCodec(keys: app.auth.signingKeys, issuer: "market09", audience: "market09-app").authenticate(session.accessToken)
            let signedWithOld = AccessTokenCodec(keys: [AuthSettings.key(secret: oldSecret)], issuer: "market09", audience: "market09-app").sign(claims)

            #expect(try await app.send("GET", "/v1/me", token: signedWithOld).status == 204)
        }
    }

    @Test func refreshingRotatesAndTheOldTokenReplaysTheSamePairWithinTheGrace() async throws {
        try await withTestApp { app async throws in
            let first = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            app.clock.advance(by: 5)

            let rotated = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken]))
            #expect(rotated.refreshToken != first.refreshToken)
            #expect(rotated.accessToken != first.accessToken)
            #expect(rotated.userID == first.userID)

            app.clock.advance(by: 9)
            let replayed = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken]))
            #expect(replayed.refreshToken == rotated.refreshToken)
            #expect(replayed.accessToken == rotated.accessToken)

            let next = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": rotated.refreshToken])
            #expect(next.status == 200)
        }
    }

    @Test func concurrentRefreshesWithOneTokenBothSucceedWithOnePair() async throws {
        try await withTestApp { app async throws in
            let first = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))

            let results = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken]) }
                }
                return try await group.reduce(into: [TestResponse]()) { $0.append($1) }
            }

            #expect(results.map(\.status) == Array(repeating: 200, count: 8))
            let pairs = Set(try results.map { try TestSession($0) }.map { $0.accessToken + " " + $0.refreshToken })
            #expect(pairs.count == 1)
        }
    }

    /// GoTrue's rule: a client that kept the parent of the session's active token (it lost
    /// a refresh's answer, or another copy of the session refreshed) gets the active pair
    /// back at any time; before, after 10 s it was reuse, the session was revoked, and the
    /// 09Market app signed its user out about once an hour.
    @Test func theParentOfTheActiveTokenGetsTheActivePairAtAnyTime() async throws {
        try await withTestApp { app async throws in
            let first = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            let active = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken]))
            app.clock.advance(by: 3_600)
            let again = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken]))
            #expect(again.refreshToken == active.refreshToken && again.accessToken == active.accessToken)
            // Nothing revoked: the active token still rotates.
            let next = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": active.refreshToken])
            #expect(next.status == 200)
        }
    }

    @Test func reuseAfterTheGraceRevokesTheWholeSession() async throws {
        try await withTestApp { app async throws in
            let first = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            let second = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken]))
            // `first` is now the grandparent of the active token: past the grace, reuse.
            let rotated = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": second.refreshToken]))
            app.clock.advance(by: 11)

            let reused = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": first.refreshToken])
            #expect(reused.status == 401)
            #expect(reused.errorCode == "refresh_token_reused")

            let current = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": rotated.refreshToken])
            #expect(current.errorCode == "session_revoked")
            try await eventually { try await app.send("GET", "/v1/me", token: rotated.accessToken).errorCode == "session_revoked" }
        }
    }

    @Test func anUnknownRefreshTokenIsInvalid() async throws {
        try await withTestApp { app async throws in
            let response = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": "made-up"])
            #expect(response.status == 401)
            #expect(response.errorCode == "invalid_token")
        }
    }

    @Test func sessionLimitsEndOldAndIdleSessions() async throws {
        try await withTestApp(configure: { $0.sessions.limits = .init(maxLifetime: 1000, maxInactivity: 300) }) { app async throws in
            let idle = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            app.clock.advance(by: 301)
            #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": idle.refreshToken]).errorCode == "session_revoked")

            var active = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            for _ in 0..<3 {
                app.clock.advance(by: 290)
                active = try TestSession(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": active.refreshToken]))
            }
            app.clock.advance(by: 200)
            #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": active.refreshToken]).errorCode == "session_revoked")
        }
    }
}

/// `value` changed by `change`.
func with<T>(_ value: T, _ change: (inout T) -> Void) -> T {
    var copy = value
    change(&copy)
    return copy
}

/// Retries `condition` for up to 5 s (revocations reach other paths through a 250 ms poll;
/// the margin is for a loaded test run, whose tasks were seen to wait seconds).
func eventually(_ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while true {
        if try await condition() { return }
        guard ContinuousClock.now < deadline else {
            Issue.record("condition did not hold within 5 s")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
