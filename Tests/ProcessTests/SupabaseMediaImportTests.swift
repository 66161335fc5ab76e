import App
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// `market09 import supabase-media` as a process against PostgreSQL, with a fake bucket
/// download: before it, every imported picture stayed in the old project's storage and was
/// lost the day the project was switched off.
@Suite struct SupabaseMediaImportTests {
    private static let bucket = "https://abcdefgh.supabase.co/storage/v1/object/public/media"

    private static func png(_ seed: UInt8) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 4, 0, 0, 0, 3, 8, 6, 0, 0, 0, seed])
            + Data(repeating: seed, count: 300)
    }
    private static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0]) + Data(repeating: 0x11, count: 500)
    private static let webp = Data("RIFF".utf8) + Data([0x40, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data(repeating: 0x22, count: 200)

    private func write(_ data: Data, _ path: String, in directory: String) throws {
        let url = URL(fileURLWithPath: directory + "/" + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    private func column(_ app: TestApp, _ sql: SQL) async throws -> [String] {
        try await app.database.pool.withConnection { try $0.query(sql).map { try $0.decode(0, as: String.self) } }
    }

    @Test func theBucketsImagesAreAdoptedRowsRewrittenAndOldURLsMappedOnArrival() async throws {
        try await withTestApp { app async throws in
            let work = "/tmp/m09-media-" + UUID().uuidString.prefix(8).lowercased()
            defer { try? FileManager.default.removeItem(atPath: work) }
            let export = work + "/export"
            // The CLI's download: object paths as folders, under the bucket's folder or not.
            try write(Self.jpeg, "media/posts/1/display.jpg", in: export)
            try write(Self.png(2), "media/posts/2/display.png", in: export)
            try write(Self.webp, "posts/3/display.webp", in: export)
            try write(Self.png(6), "media/posts/6/my photo.png", in: export)
            try write(Data("PK\u{3}\u{4}".utf8) + Data(repeating: 0, count: 100), "media/posts/5/display.jpg", in: export)  // a zip
            try write(Self.jpeg, "media/users/u1/profile.jpg", in: export)  // the same bytes as post 1
            try write(Self.png(9), "media/influencers/9/profile.png", in: export)

            let influencer = try await app.influencer("glow.jiyoung")
            var posts: [Int: Int] = [:]
            for (number, object) in [(1, "posts/1/display.jpg"), (2, "posts/2/display.png"), (3, "posts/3/display.webp"), (4, "posts/4/display.jpg"),
                                     (5, "posts/5/display.jpg"), (6, "posts/6/my%20photo.png")] {
                let id = try await app.post(influencer: influencer, name: "상품 \(number)", start: "2026-12-01T00:00:00Z", end: "2026-12-08T00:00:00Z")
                try await app.database.pool.withConnection { try $0.execute("UPDATE posts SET display_url = \("\(Self.bucket)/\(object)") WHERE id = \(id)") }
                posts[number] = id
            }
            let (user, token) = try await app.user()
            try await app.database.pool.withConnection { connection in
                try connection.execute("UPDATE users SET profile_url = \("\(Self.bucket)/users/u1/profile.jpg") WHERE id = \(user)")
                try connection.execute("UPDATE influencers SET profile_pic_url = \("\(Self.bucket)/influencers/9/profile.png") WHERE id = \(influencer)")
            }
            let settings = app.dependencies.mediaSettings
            let environment = ["DATABASE_URL": app.database.url, "MEDIA_DIR": settings.directory, "MEDIA_BASE_URL": settings.publicBaseURL]
            func importMedia(_ extra: [String] = []) async throws -> (code: Int32, output: String) {
                try await Market09Process.run(["import", "supabase-media", export, "--storage-url", Self.bucket + "/"] + extra,
                                              environment: environment, directory: work)
            }
            let snapshot: SQL = "SELECT md5(string_agg(display_url, '|' ORDER BY id)) FROM posts"

            let dry = try await importMedia(["--dry-run"])
            #expect(dry.output.contains("would adopt media/posts/2/display.png (1 KB, 1 rows)") && dry.output.contains("would adopt 6 ("), "\(dry.output)")
            #expect(try await column(app, "SELECT count(*)::text FROM uploads") == ["0"])

            let first = try await importMedia()
            #expect(first.code == 1, "a missing and a refused object: \(first.output)")
            #expect(first.output.contains("media: 8 objects under \(Self.bucket) shown by 8 rows"), "\(first.output)")
            #expect(first.output.contains("adopted 6 ("), "\(first.output)")
            #expect(first.output.contains("already there 0, missing 1, refused 1"))
            #expect(first.output.contains("rewrote 6 rows (posts 4, users 1, influencers 1)"))
            #expect(first.output.contains("missing: media/posts/4/display.jpg: not in \(export) (shown by post \(posts[4]!); left as it was)"))
            #expect(first.output.contains("refused: media/posts/5/display.jpg: not a JPEG, PNG, HEIC or WebP image"))

            // Every rewritten URL is served from /media/ with its type; one copy per content.
            let urls = try await column(app, "SELECT display_url FROM posts UNION ALL SELECT profile_url FROM users WHERE profile_url IS NOT NULL "
                                           + "UNION ALL SELECT profile_pic_url FROM influencers")
            let local = urls.filter { $0.hasPrefix(settings.publicBaseURL + "/media/") }
            #expect(local.count == 6 && urls.filter { $0.hasPrefix(Self.bucket) }.count == 2, "\(urls)")
            for url in local {
                let served = try await app.send("GET", String(url.dropFirst(settings.publicBaseURL.count)))
                let type = served.header("Content-Type") ?? ""
                #expect(served.status == 200 && (url.hasSuffix(".jpg") ? type == "image/jpeg" : url.hasSuffix(".png") ? type == "image/png" : type == "image/webp"),
                        "\(url): \(served.status) \(type)")
            }
            #expect(try await column(app, "SELECT count(*)::text FROM uploads") == ["5"], "post 1 and the user's picture are the same bytes")
            #expect(try await app.dependencies.media.prune(before: Date().addingTimeInterval(3 * 86_400)).isEmpty, "every adopted image is referenced")

            // Again: the rewritten rows are done; the two problems are reported again, nothing changes.
            let before = try await column(app, snapshot)
            let again = try await importMedia()
            #expect(again.code == 1 && again.output.contains("adopted 0 (0 KB), already there 0, missing 1, refused 1"), "\(again.output)")
            #expect(try await column(app, snapshot) == before)

            // Old URLs arriving later (the app in users' hands) are stored as the image here.
            let created = try await app.send("POST", "/v1/posts", json: [
                "influencer_id": influencer, "product_name": "새 상품", "category": "beauty", "display_url": "\(Self.bucket)/posts/2/display.png",
                "group_buying_start": "2026-12-10T00:00:00+09:00", "group_buying_end": "2026-12-12T00:00:00+09:00"], token: token)
            #expect(created.status == 201 && (created.json["display_url"] as? String)?.hasPrefix(settings.publicBaseURL + "/media/") == true, "\(created.text)")
            let profile = try await app.send("PATCH", "/v1/me", json: ["profile_url": "\(Self.bucket)/influencers/9/profile.png"], token: token)
            #expect((profile.json["profile_url"] as? String)?.hasPrefix(settings.publicBaseURL + "/media/") == true, "\(profile.text)")
            let unknown = try await app.send("PATCH", "/v1/me", json: ["profile_url": "\(Self.bucket)/posts/4/display.jpg"], token: token)
            #expect(unknown.json["profile_url"] as? String == "\(Self.bucket)/posts/4/display.jpg", "an object never imported keeps its URL")
        }
    }

    @Test func usageMistakesExitTwoAndSayWhy() async throws {
        let work = "/tmp/m09-media-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        for (arguments, message) in [
            (["import", "supabase-media", work], "--storage-url is required"),
            (["import", "supabase-media", work, "--storage-url", "https://example.com/media"], "--storage-url must be a bucket's public base"),
            (["import", "supabase-media", work + "/nowhere", "--storage-url", Self.bucket], "is not a directory"),
            (["import", "supabase-media", work, "--storage-url", Self.bucket], "set MEDIA_BASE_URL"),
        ] {
            let result = try await Market09Process.run(arguments, environment: ["DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"], directory: work)
            #expect(result.code == 2 && result.output.contains(message), "\(arguments): \(result.output)")
        }
    }

    @Test func linksThatLeaveTheExportAreRefusedAndNamedAtEveryComponent() async throws {
        try await withTestApp { app async throws in
            let work = "/tmp/m09-media-" + UUID().uuidString.prefix(8).lowercased()
            defer { try? FileManager.default.removeItem(atPath: work) }
            let export = work + "/export", outside = work + "/outside"
            try write(Self.png(3), "secret/display.png", in: outside)
            try write(Self.png(4), "media/posts/2/display.png", in: export)
            let files = FileManager.default
            // A directory of the export that is a link out of it, a file that is one, and a
            // directory linked to another inside the export (that one stays inside).
            try files.createSymbolicLink(atPath: export + "/media/posts/7", withDestinationPath: outside + "/secret")
            try files.createDirectory(atPath: export + "/media/posts/8", withIntermediateDirectories: true)
            try files.createSymbolicLink(atPath: export + "/media/posts/8/display.png", withDestinationPath: outside + "/secret/display.png")
            try files.createSymbolicLink(atPath: export + "/media/posts/9", withDestinationPath: export + "/media/posts/2")

            let influencer = try await app.influencer("glow.jiyoung")
            var posts: [Int: Int] = [:]
            for number in [2, 7, 8, 9] {
                let id = try await app.post(influencer: influencer, name: "상품 \(number)", start: "2026-12-01T00:00:00Z", end: "2026-12-08T00:00:00Z")
                try await app.database.pool.withConnection {
                    try $0.execute("UPDATE posts SET display_url = \("\(Self.bucket)/posts/\(number)/display.png") WHERE id = \(id)")
                }
                posts[number] = id
            }
            let settings = app.dependencies.mediaSettings
            let result = try await Market09Process.run(["import", "supabase-media", export, "--storage-url", Self.bucket],
                                                       environment: ["DATABASE_URL": app.database.url, "MEDIA_DIR": settings.directory,
                                                                     "MEDIA_BASE_URL": settings.publicBaseURL], directory: work)
            #expect(result.code == 1, "\(result.output)")
            #expect(result.output.contains("adopted 2 ("), "posts 2 and 9 (one image): \(result.output)")
            for number in [7, 8] {
                #expect(result.output.contains("refused: media/posts/\(number)/display.png: the path leaves the export through a link (shown by post \(posts[number]!)"),
                        "\(number): \(result.output)")
            }
            let urls = try await column(app, "SELECT id::text || ' ' || display_url FROM posts ORDER BY id")
            #expect(urls.filter { $0.contains(settings.publicBaseURL) }.count == 2 && urls.filter { $0.contains(Self.bucket) }.count == 2, "\(urls)")
            #expect(try await column(app, "SELECT count(*)::text FROM uploads") == ["1"], "the outside image was never copied in")
        }
    }
}
