import Foundation
import TestSupport
import Testing

/// The 09Market app and the supabase-swift SDK inside it hold two copies of one session:
/// the SDK refreshes its copy ahead of expiry (`autoRefreshTokenTick`: every 30 s, when
/// three ticks or fewer are left; `session()` when under 30 s are left); the app keeps its
/// own copy in the keychain and refreshes it only when a request answers 401
/// (`Interceptor.refreshToken`, through `setSession`), with whatever token it last saw.
/// Replayed here through the Supabase-compatible surface on a clock the test moves in
/// 10 s steps, with access tokens living 10 minutes: the SDK's rules as written, the app
/// refused 90-120 s after the SDK rotated (past the 10 s reuse grace, as with 1-hour
/// tokens), and now and then both refreshing at the same moment with the same token.
@Suite struct SessionSoakTests {
    private static let apikey = [("apikey", TestApp.anonKey)]

    private struct Copy {
        var access: String
        var refresh: String
        var expiresAt: Int
    }

    private static func copy(_ response: TestResponse) throws -> Copy {
        let session = try TestSession(response)
        let expiresAt = try #require(response.json["expires_at"] as? Int)
        return Copy(access: session.accessToken, refresh: session.refreshToken, expiresAt: expiresAt)
    }

    @Test func theAppAndItsSDKSharingOneSessionAreNeverSignedOut() async throws {
        try await withTestApp(configure: { $0.accessTokenLifetime = 600 }) { app async throws in
            func refresh(_ token: String) async throws -> TestResponse {
                try await app.send("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": token], headers: Self.apikey)
            }
            func use(_ copy: Copy) async throws -> [Int] {
                [try await app.send("GET", "/functions/v1/posts?action=list&page=1&limit=30", token: copy.access, headers: Self.apikey).status,
                 try await app.send("GET", "/functions/v1/me", token: copy.access, headers: Self.apikey).status]
            }
            let signUp = try await app.send("POST", "/auth/v1/signup", headers: Self.apikey)
            let user = try TestSession(signUp).userID
            var sdk = try Self.copy(signUp)
            var keychain = sdk
            var refreshes = 0, signOuts: [String] = [], uncured: [String] = []

            for step in 1...1_900 {
                app.clock.advance(by: 10)
                let now = Int(app.clock.now.timeIntervalSince1970)
                // The SDK's tick (every 30 s): three ticks or fewer left; or its session() under 30 s.
                if (step % 3 == 0 && (sdk.expiresAt - now) / 30 <= 3) || sdk.expiresAt - now < 30 {
                    if step % 21 == 0 {
                        // Both at once with the same token (the app was refused at that moment).
                        let (sdkToken, appToken) = (sdk.refresh, sdk.refresh)
                        async let first = refresh(sdkToken)
                        async let second = refresh(appToken)
                        let (a, b) = try await (first, second)
                        for answer in [a, b] where answer.status != 200 { signOuts.append("step \(step): \(answer.status) \(answer.text)") }
                        if a.status == 200 { sdk = try Self.copy(a) }
                        if b.status == 200 { keychain = try Self.copy(b) }
                        refreshes += 2
                    } else {
                        let answer = try await refresh(sdk.refresh)
                        refreshes += 1
                        if answer.status == 200 { sdk = try Self.copy(answer) } else { signOuts.append("step \(step) sdk: \(answer.status) \(answer.text)") }
                    }
                }
                _ = try await use(sdk)
                // The app: its own copy, refreshed when refused, then the request again.
                if try await use(keychain).contains(401) {
                    let answer = try await refresh(keychain.refresh)
                    refreshes += 1
                    guard answer.status == 200 else {
                        signOuts.append("step \(step) app: \(answer.status) \(answer.text)")
                        continue
                    }
                    keychain = try Self.copy(answer)
                    let retried = try await use(keychain)
                    if !retried.allSatisfy({ (200...299).contains($0) }) { uncured.append("step \(step): \(retried)") }
                }
            }
            #expect(refreshes >= 30, "\(refreshes) refreshes")
            #expect(signOuts.isEmpty, "signed out: \(signOuts.prefix(3))")
            #expect(uncured.isEmpty, "401s a refresh did not cure: \(uncured.prefix(3))")
            let sessions: [Int] = try await app.database.pool.withConnection { connection in
                let row = try connection.query("""
                    SELECT count(*)::int, (count(*) FILTER (WHERE revoked_at IS NULL))::int FROM sessions WHERE user_id = \(user)::uuid
                    """).first!
                return [try row.decode(0), try row.decode(1)]
            }
            #expect(sessions == [1, 1], "one session row, live: \(sessions)")
        }
    }
}
