import Foundation
import TestSupport
import Testing

/// Every answer of the Supabase-compatible surface decodes with the app's own types, and
/// every date in it passes the app's rule: ISO 8601 with fractional seconds (the app turns
/// any other form into "now" without a word).
@Suite struct CompatibleResponsesDecodeTests {
    private static let apikey = [("apikey", TestApp.anonKey)]

    private static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse, status: Int = 200,
                                             sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(T.self, from: response.response.body)
    }

    /// The app's date rule (`ISO8601DateFormatter` with `.withFractionalSeconds`).
    private static func appDate(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(formatter.date(from: text) != nil, "the app cannot parse \(text)", sourceLocation: sourceLocation)
    }

    private static func appDates(_ post: AppPost) {
        for text in [post.groupBuyingStart, post.groupBuyingEnd, post.postedAt] { appDate(text) }
    }

    private static func multipart(_ file: Data) -> Data {
        Data("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n".utf8) + file
            + Data("\r\n--b--\r\n".utf8)
    }

    /// A Google sign-in's answer: GoTrue's user_metadata and one identity, as supabase-swift
    /// decodes them, and the profile `me` answers with.
    @Test func aGoogleSignInDecodesWithItsMetadataAndIdentity() async throws {
        let provider = try await TestIdentityProvider.make()
        try await withTestApp(configure: { $0.googleClientIDs = ["com.09market.app"]; $0.googleJWKS = .file(provider.jwksPath) }) { app async throws in
            var claims = TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: "com.09market.app", subject: "google-decode",
                                                     email: "decode@gmail.com")
            claims["name"] = "박서연"
            claims["picture"] = "https://lh3.googleusercontent.com/a/seoyeon"
            let session = try Self.decode(SupabaseSession.self, try await app.send(
                "POST", "/auth/v1/token?grant_type=id_token", json: ["provider": "google", "id_token": try await provider.idToken(claims: claims)],
                headers: Self.apikey))
            let identity = try #require(session.user.identities?.first)
            #expect(identity.provider == "google" && identity.id == "google-decode" && identity.userId == session.user.id && identity.identityId != nil)
            #expect(identity.identityData?["full_name"] != nil && session.user.userMetadata["avatar_url"] != nil)
            for text in [identity.createdAt, identity.updatedAt, identity.lastSignInAt].compactMap({ $0 }) { Self.appDate(text) }
            let me = try Self.decode(AppUser.self, try await app.send("GET", "/functions/v1/me", token: session.accessToken, headers: Self.apikey))
            #expect(me.nickname == "박서연" && me.profileUrl == "https://lh3.googleusercontent.com/a/seoyeon" && me.provider == "google")
        }
    }

    @Test func everyCompatibleAnswerDecodesWithTheAppsTypes() async throws {
        try await withTestApp { app async throws in
            // Auth: anonymous session, then email upgrade, as supabase-swift decodes them.
            let anonymous = try Self.decode(SupabaseSession.self, try await app.send("POST", "/auth/v1/signup", headers: Self.apikey))
            #expect(anonymous.user.isAnonymous)
            for text in [anonymous.user.createdAt, anonymous.user.updatedAt] { Self.appDate(text) }
            let upgraded = try Self.decode(SupabaseUser.self, try await app.send(
                "PUT", "/auth/v1/user", json: ["email": "app@example.com", "password": "a long enough password"],
                token: anonymous.accessToken, headers: Self.apikey))
            #expect(upgraded.id == anonymous.user.id && !upgraded.isAnonymous)
            let session = try Self.decode(SupabaseSession.self, try await app.send(
                "POST", "/auth/v1/token?grant_type=password", json: ["email": "app@example.com", "password": "a long enough password"], headers: Self.apikey))
            let emailUser = try Self.decode(SupabaseUser.self, try await app.send("GET", "/auth/v1/user", token: session.accessToken, headers: Self.apikey))
            let emailIdentity = try #require(emailUser.identities?.first)
            #expect(emailIdentity.provider == "email" && emailIdentity.userId == emailUser.id)
            for text in [emailIdentity.createdAt, emailIdentity.updatedAt, emailIdentity.lastSignInAt].compactMap({ $0 }) { Self.appDate(text) }
            let token = session.accessToken

            // Data: posts with and without prices, influencers with and without names.
            let named = try await app.influencer("kim.named", fullName: "김민지")
            let bare = try await app.database.pool.withConnection { connection -> Int in
                try connection.query("INSERT INTO influencers (username) VALUES ('lee.bare') RETURNING id").first!.decode(0)
            }
            let now = app.clock.now
            func stamp(_ days: Double) -> String { ISO8601DateFormatter().string(from: now.addingTimeInterval(days * 86_400)) }
            _ = try await app.post(influencer: named, name: "크림", start: stamp(-1), end: stamp(3))
            let created = try Self.decode(AppPost.self, try await app.send("POST", "/functions/v1/posts?action=create", json: [
                "influencer_id": String(bare), "product_name": "세럼", "price": 19_000, "category": "뷰티",
                "group_buying_start": stamp(-0.5), "group_buying_end": stamp(2),
            ], token: token, headers: Self.apikey), status: 201)
            Self.appDates(created)
            #expect(created.influencer.fullName == "" && created.category == "뷰티")
            let updated = try Self.decode(AppPost.self, try await app.send("PUT", "/functions/v1/posts?action=update",
                                                                           json: ["post_id": created.id, "product_name": "세럼 2"], token: token, headers: Self.apikey))
            Self.appDates(updated)

            let page = try Self.decode(AppPage<AppPost>.self, try await app.send("GET", "/functions/v1/posts?action=list&page=1&limit=30",
                                                                                   token: token, headers: Self.apikey))
            #expect(page.data.count == 2 && page.total == 2)
            page.data.forEach(Self.appDates)
            let top = try Self.decode([AppPost].self, try await app.send("GET", "/functions/v1/posts?action=top10", token: token, headers: Self.apikey))
            #expect(top.map(\.rank) == [1, 2])
            #expect(try await app.send("PUT", "/v1/influencers/\(bare)/follow", token: token).status == 200)
            let day = String(stamp(0).prefix(10))
            let schedule = try Self.decode(AppSchedule.self, try await app.send(
                "GET", "/functions/v1/posts?action=schedule&start_date=\(day)&end_date=\(day)", token: token, headers: Self.apikey))
            #expect(schedule.meta.total == 1)
            schedule.data.forEach(Self.appDates)

            let me = try Self.decode(AppUser.self, try await app.send("GET", "/functions/v1/me", token: token, headers: Self.apikey))
            Self.appDate(me.createdAt)
            _ = try Self.decode(AppUser.self, try await app.send("PUT", "/functions/v1/me", json: ["nickname": "앱"], token: token, headers: Self.apikey))
            let found = try Self.decode([AppInfluencer].self, try await app.send("GET", "/functions/v1/influencers?action=search&username=e",
                                                                                 token: token, headers: Self.apikey))
            #expect(Set(found.map(\.username)) == ["kim.named", "lee.bare"])
            _ = try Self.decode(AppRegistration.self, try await app.send("POST", "/functions/v1/influencers?action=register",
                                                                         json: ["instagram_username": "new.one"], token: token, headers: Self.apikey))
            let conflict = try Self.decode(AppError.self, try await app.send("POST", "/functions/v1/influencers?action=register",
                                                                             json: ["instagram_username": "kim.named"], token: token, headers: Self.apikey), status: 409)
            #expect(conflict.error == "influencer.conflict")

            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 2, 0, 0, 0, 2, 8, 6, 0, 0, 0]
                + [UInt8](repeating: 0, count: 32))
            let upload = try Self.decode(AppUpload.self, try await app.send("POST", "/functions/v1/upload", body: Self.multipart(png), token: token,
                                                                            headers: Self.apikey + [("Content-Type", "multipart/form-data; boundary=b")]))
            #expect(URL(string: upload.url) != nil)
        }
    }
}
