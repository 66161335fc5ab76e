import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
@testable import Server
import TestSupport
import Testing

/// `market09 import supabase DIRECTORY`: the Supabase project's CSV exports, imported so
/// that its Google and Apple users sign in to the same accounts with their likes and
/// follows, posts and influencers under new ids with their old ones kept.
@Suite struct SupabaseImportTests {
    static let google = "111-google-sub"
    static let mina = "7d4d5c1e-1111-4c3b-9c52-0a0a0a0a0a01"
    static let joon = "7d4d5c1e-2222-4c3b-9c52-0a0a0a0a0a02"
    static let emailOnly = "7d4d5c1e-3333-4c3b-9c52-0a0a0a0a0a03"
    static let postA = "5f0e8a52-aaaa-4d6e-9a0e-000000000001"

    /// A small export with the cases an import meets: users with and without a social
    /// identity, a malformed influencer, posts that break this schema's rules, a repeated
    /// post, likes and follows of users and posts that were left out.
    static let export: [String: String] = [
        "users.csv": """
            id,nickname,profile_url,provider,created_at
            \(mina),미나,https://img.example/mina.jpg,google,2026-05-01 10:00:00.123+00
            \(joon),,not a url,apple,2026-05-02T10:00:00Z
            \(emailOnly),메일,,email,2026-05-03T10:00:00Z
            """,
        "identities.csv": """
            provider_id,user_id,identity_data,provider,last_sign_in_at,created_at,updated_at,email,id
            \(google),\(mina),"{""sub"": ""\(google)""}",google,,2026-05-01T10:00:00Z,,Mina@Gmail.com,1
            000123.apple.sub,\(joon),{},apple,,2026-05-02T10:00:00Z,,,2
            \(emailOnly),\(emailOnly),{},email,,2026-05-03T10:00:00Z,,mail@example.com,3
            """,
        "influencers.csv": """
            id,username,full_name,biography,profile_pic_url,followers_count,external_url,external_url_title,category,last_synced_at,created_at,updated_at
            inf_1,Kim.Deals,김딜,"공구, 매주",https://img.example/k.jpg,120000,https://kim.example,,뷰티,,2026-04-01T00:00:00Z,
            1234567890,lee.living,,,,abc,,"살림 링크",living,2026-05-01T00:00:00Z,,
            inf_3,not a username!,,,,,,,,,,
            """,
        "posts.csv": """
            id,influencer_id,post_url,post_type,caption,display_url,hashtags,group_buying_start,group_buying_end,product_name,group_buying_url,price,category,submitted_by,likes_count,posted_at,created_at,updated_at
            \(postA),inf_1,https://www.instagram.com/p/A/,Sidecar,"세럼 공구
            둘째 줄",https://img.example/a.jpg,"{#Beauty,kbeauty,""bad tag!""}",2026-05-10T00:00:00Z,2026-05-15T00:00:00Z,비타민 세럼,,19000,뷰티,\(mina),99,2026-05-09T00:00:00Z,,
            p-2,1234567890,https://www.instagram.com/p/B/,,,,[],2026-05-11T00:00:00+09:00,2026-05-12T00:00:00+09:00,수납함,,,리빙,,0,,2026-05-10T00:00:00Z,
            p-3,inf_1,https://www.instagram.com/p/C/,,,,,2026-05-20T00:00:00Z,2026-05-10T00:00:00Z,거꾸로 된 창,,,뷰티,,0,,,
            p-4,inf_1,https://www.instagram.com/p/D/,,,,,,,날짜 없음,,,뷰티,,0,,,
            p-5,inf_3,https://www.instagram.com/p/E/,,,,,2026-05-10T00:00:00Z,2026-05-15T00:00:00Z,없는 인플루언서,,,뷰티,,0,,,
            p-6,inf_1,https://www.instagram.com/p/F/,,,,,2026-05-10T00:00:00Z,2026-05-15T00:00:00Z,비타민 세럼,,,뷰티,,0,,,
            """,
        "likes.csv": """
            user_id,post_id,created_at
            \(mina),\(postA),2026-05-12T00:00:00Z
            \(joon),\(postA),2026-05-12T01:00:00Z
            \(joon),p-2,2026-05-12T01:00:00Z
            \(emailOnly),\(postA),2026-05-12T02:00:00Z
            \(mina),p-3,2026-05-12T02:00:00Z
            """,
        "follows.csv": """
            user_id,influencer_id,created_at
            \(mina),inf_1,2026-05-12T00:00:00Z
            \(joon),inf_3,2026-05-12T00:00:00Z
            """,
    ]

    @Test func theProjectsUsersKeepTheirAccountsLikesAndFollows() async throws {
        let provider = try await TestIdentityProvider.make()
        try await withTestApp(configure: {
            $0.googleClientIDs = ["com.09market.app"]
            $0.googleJWKS = .file(provider.jwksPath)
        }) { app async throws in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("supabase-export-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            for (name, text) in Self.export { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }

            // One connection: the second import below runs in the first one's session (its
            // temporary functions outlive the transaction; that failed a CI run with 42723).
            let importer = PostgresSupabaseImporter(pool: PostgresPool(.init(url: app.database.url, size: 1)))
            let (counts, unlinked) = try await importer.run(try SupabaseImportCommand.read(directory.path))
            #expect(unlinked.isEmpty)
            let inserted = Dictionary(uniqueKeysWithValues: counts.map { ($0.table, $0.inserted) })
            #expect(inserted == ["users": 2, "identities": 2, "influencers": 2, "supabase_influencer_ids": 2, "posts": 2, "likes": 3, "follows": 1])
            #expect(counts.first { $0.table == "posts" }?.read == 6)
            // The original pipeline's key (Instagram's account id) and what it kept with it.
            let kept: String = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    SELECT string_agg(username || ' ' || COALESCE(instagram_id, '-') || ' ' || COALESCE(external_url_title, '-') || ' '
                                      || COALESCE(last_synced_at::date::text, '-'), ', ' ORDER BY username) FROM influencers
                    """).single().decode(0)
            }
            #expect(kept == "kim.deals - - -, lee.living 1234567890 살림 링크 2026-05-01")
            #expect(try await app.database.pool.withConnection { try $0.query("SELECT string_agg(source, ',' ORDER BY product_name) FROM posts").single().decode(0, as: String.self) }
                    == "app,import", "비타민 세럼 came from a member, 수납함 from the pipeline")

            // Mina signs in with Google as before: the same id, her like and her follow.
            let claims = TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: "com.09market.app", subject: Self.google)
            let signIn = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "id_token", "provider": "google",
                                                                          "id_token": try await provider.idToken(claims: claims)])
            let session = try TestSession(signIn)
            #expect(session.userID == Self.mina)
            let me = try await app.send("GET", "/v1/me", token: session.accessToken)
            #expect(me.json["nickname"] as? String == "미나")
            let likes = try #require(try await app.send("GET", "/v1/me/likes", token: session.accessToken).json["data"] as? [[String: Any]])
            #expect(likes.map { $0["product_name"] as? String } == ["비타민 세럼"])
            let post = try #require(likes.first)
            #expect(post["likes_count"] as? Int == 2, "counted from the likes, not the export's 99")
            #expect(post["hashtags"] as? [String] == ["beauty", "kbeauty"])
            #expect(post["post_type"] as? String == "Sidecar" && post["category"] as? String == "beauty")
            let follows = try #require(try await app.send("GET", "/v1/me/follows", token: session.accessToken).json["data"] as? [[String: Any]])
            #expect(follows.map { $0["username"] as? String } == ["kim.deals"])

            let alias: Int = try await app.database.pool.withConnection { connection in
                try connection.query("SELECT post_id FROM supabase_post_ids WHERE text_id = \(Self.postA)").first!.decode(0)
            }
            #expect(post["id"] as? Int == alias)
            let detail = try await app.send("GET", "/v1/posts/\(alias)", token: session.accessToken)
            #expect(detail.json["caption"] as? String == "세럼 공구\n둘째 줄")

            // Again: nothing new.
            let (again, unlinkedAgain) = try await importer.run(try SupabaseImportCommand.read(directory.path))
            #expect(again.allSatisfy { $0.inserted == 0 }, "\(again)")
            #expect(unlinkedAgain.isEmpty, "a rerun finds its own identities linked: \(unlinkedAgain)")
        }
    }

    /// Before: an export whose user id named an account already here linked the export's
    /// Google identity to it, and whoever held that identity signed in to that account.
    @Test func identitiesAreLinkedOnlyToUsersTheImportCreates() async throws {
        let provider = try await TestIdentityProvider.make()
        try await withTestApp(configure: {
            $0.googleClientIDs = ["com.09market.app"]
            $0.googleJWKS = .file(provider.jwksPath)
        }) { app async throws in
            // A local account, made here, whose id the export happens to (or is crafted to) use.
            let local = try #require(UUID(uuidString: Self.mina))
            try await app.database.pool.withConnection { connection in
                try connection.execute("INSERT INTO users (id, is_anonymous, nickname) VALUES (\(local), false, '로컬')")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("supabase-export-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            for (name, text) in Self.export { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }

            let result = try await Market09Process.run(["import", "supabase", directory.path], environment: ["DATABASE_URL": app.database.url],
                                                       directory: directory.path)
            #expect(result.code == 1 && result.output.contains("1 identities not linked") && result.output.contains("google identity of user \(Self.mina)"),
                    "\(result.output)")
            #expect(result.output.contains("identities: 1 inserted of 3 read"), "\(result.output)")
            // The Google identity of the export does not open the local account.
            let claims = TestIdentityProvider.claims(issuer: "https://accounts.google.com", audience: "com.09market.app", subject: Self.google)
            let signIn = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "id_token", "provider": "google",
                                                                          "id_token": try await provider.idToken(claims: claims)])
            let session = try TestSession(signIn)
            #expect(session.userID != Self.mina)
            let linked: Int = try await app.database.pool.withConnection { connection in
                try connection.query("SELECT count(*)::int FROM identities WHERE user_id = \(local)").first!.decode(0)
            }
            #expect(linked == 0)
        }
    }

    @Test func theCommandReadsADirectoryAndRefusesOneWithoutExports() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-supabase-import-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory + "/export", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["DATABASE_URL": database.url]
        let empty = try await Market09Process.run(["import", "supabase", directory + "/export"], environment: environment, directory: directory)
        #expect(empty.code == 2, "\(empty.output)")
        for (name, text) in Self.export { try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/export/" + name)) }
        let run = try await Market09Process.run(["import", "supabase", directory + "/export"], environment: environment, directory: directory)
        #expect(run.code == 0, "\(run.output)")
        #expect(run.output.contains("posts: 2 inserted of 6 read"), "\(run.output)")
        #expect(run.output.contains("likes: 3 inserted of 5 read"), "\(run.output)")
        await database.drop()
    }
}
