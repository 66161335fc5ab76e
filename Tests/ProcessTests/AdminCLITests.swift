import Cryptography
import Domain
import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// `market09 import` and `market09 admin` run as processes against PostgreSQL.
@Suite struct AdminCLITests {
    private func workspace() throws -> String {
        let path = "/tmp/m09cli-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func write(_ text: String, _ name: String, in directory: String) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func count(_ database: TestDatabase, _ sql: SQL) async throws -> Int {
        try await database.pool.withConnection { try $0.query(sql).first!.decode(0, as: Int.self) }
    }

    @Test func theExampleFilesImportAndReimportingChangesNothing() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let examples = TestDatabase.packageRoot.appendingPathComponent("examples").path
        let environment = ["DATABASE_URL": database.url]

        let influencers = try await Market09Process.run(["import", "influencers", examples + "/influencers.csv", "--rejects", directory + "/r1"], environment: environment, directory: directory)
        #expect(influencers.code == 0)
        #expect(influencers.output == "influencers: imported 3, updated 0, unchanged 0, rejected 0\n")
        let posts = try await Market09Process.run(["import", "posts", examples + "/posts.json", "--rejects", directory + "/r2"], environment: environment, directory: directory)
        #expect(posts.output == "posts: imported 3, updated 0, unchanged 0, rejected 0\n")

        let again = try await Market09Process.run(["import", "posts", examples + "/posts.json", "--rejects", directory + "/r2"], environment: environment, directory: directory)
        #expect(again.output == "posts: imported 0, updated 0, unchanged 3, rejected 0\n")
        let ndjson = try await Market09Process.run(["import", "influencers", examples + "/influencers.ndjson", "--rejects", directory + "/r3"], environment: environment, directory: directory)
        #expect(ndjson.output == "influencers: imported 1, updated 1, unchanged 0, rejected 0\n")

        #expect(try await count(database, "SELECT count(*) FROM posts") == 3)
        #expect(try await count(database, "SELECT post_count FROM category_post_counts WHERE category_id = 'camping'") == 1)
        let bio = try await database.pool.withConnection { try $0.query("SELECT biography FROM influencers WHERE username = 'beauty.kim'").first!.decode(0, as: String?.self) }
        #expect(bio == nil, "the NDJSON row has no biography, so the upsert cleared it")
        await database.drop()
    }

    @Test func badRowsGoToTheRejectsFileAndTheExitCodeSaysSo() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let file = try write("""
            {"username": "good.one", "followers_count": 10}
            {"username": "Bad Name!"}
            not json at all
            {"username": "neg", "followers_count": -5}
            {"username": "url", "external_url": "ftp://x"}
            {"username": "cat", "category": "weapons"}
            {"username": "good.two"}
            """, "influencers.ndjson", in: directory)

        let result = try await Market09Process.run(["import", "influencers", file], environment: ["DATABASE_URL": database.url], directory: directory)

        #expect(result.code == 1)
        #expect(result.output == "influencers: imported 2, updated 0, unchanged 0, rejected 5 (see \(file).rejects.ndjson)\n")
        let rejects = try String(contentsOfFile: file + ".rejects.ndjson", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(rejects.count == 5)
        #expect(rejects[0] == #"{"line":2,"reason":"username: username must be an Instagram username: 1 to 30 of a-z, 0-9, '.', '_'"}"#)
        #expect(rejects[1] == #"{"line":3,"reason":"line is not a JSON object"}"#)
        #expect(rejects[2].contains("followers_count"))
        #expect(rejects[3].contains("external_url"))
        #expect(rejects[4].contains("category"))
        #expect(try await count(database, "SELECT count(*) FROM influencers") == 2)
        await database.drop()
    }

    @Test func atomicImportsLeaveNothingBehindOnFailure() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        _ = try await Market09Process.run(["import", "influencers", try write("username\nseller\n", "i.csv", in: directory)], environment: ["DATABASE_URL": database.url], directory: directory)
        let posts = try write("""
            influencer_username,product_name,price,category,group_buying_start,group_buying_end
            seller,"쌀 10kg, 햅쌀",32000,food,2026-12-01T00:00:00+09:00,2026-12-03T00:00:00+09:00
            nobody,유령 상품,1000,food,2026-12-01T00:00:00+09:00,2026-12-03T00:00:00+09:00
            """, "p.csv", in: directory)

        let atomic = try await Market09Process.run(["import", "posts", posts, "--atomic"], environment: ["DATABASE_URL": database.url], directory: directory)
        #expect(atomic.code == 1)
        #expect(atomic.output.hasSuffix("; --atomic: nothing was imported\n"))
        #expect(try await count(database, "SELECT count(*) FROM posts") == 0)
        #expect(try String(contentsOfFile: posts + ".rejects.ndjson", encoding: .utf8) == #"{"line":3,"reason":"influencer nobody does not exist"}"# + "\n")

        let partial = try await Market09Process.run(["import", "posts", posts], environment: ["DATABASE_URL": database.url], directory: directory)
        #expect(partial.output.hasPrefix("posts: imported 1, updated 0, unchanged 0, rejected 1"))
        let name = try await database.pool.withConnection { try $0.query("SELECT product_name FROM posts").first!.decode(0, as: String.self) }
        #expect(name == "쌀 10kg, 햅쌀")
        await database.drop()
    }

    @Test func aPostRepeatedInOneFileKeepsItsLastValues() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let environment = ["DATABASE_URL": database.url]
        _ = try await Market09Process.run(["import", "influencers", try write("username\nrepeat\n", "i.csv", in: directory)], environment: environment, directory: directory)
        let posts = try write("""
            {"influencer_username": "repeat", "product_name": "같은 상품", "price": 1000, "category": "food", "group_buying_start": "2026-12-01T00:00:00Z", "group_buying_end": "2026-12-02T00:00:00Z"}
            {"influencer_username": "repeat", "product_name": "같은 상품", "price": 2000, "category": "food", "group_buying_start": "2026-12-01T00:00:00Z", "group_buying_end": "2026-12-02T00:00:00Z"}
            """, "p.ndjson", in: directory)

        let result = try await Market09Process.run(["import", "posts", posts], environment: environment, directory: directory)

        #expect(result.output == "posts: imported 1, updated 0, unchanged 1, rejected 0\n")
        #expect(try await count(database, "SELECT price FROM posts") == 2000)
        await database.drop()
    }

    @Test func postsImportWithTheirInstagramDetailsFromCSVAndNDJSON() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let environment = ["DATABASE_URL": database.url]
        _ = try await Market09Process.run(["import", "influencers", try write("username\ntagger\n", "i.csv", in: directory)], environment: environment, directory: directory)
        let csv = try write("""
            influencer_username,product_name,category,group_buying_start,group_buying_end,post_url,caption,hashtags,post_type
            tagger,크림,beauty,2026-12-01T00:00:00Z,2026-12-02T00:00:00Z,https://www.instagram.com/p/A1/,"첫 줄
            둘째 줄",#크림 #Skincare,Image
            tagger,나쁜 태그,beauty,2026-12-01T00:00:00Z,2026-12-02T00:00:00Z,,,#a-b,
            """, "p.csv", in: directory)
        let first = try await Market09Process.run(["import", "posts", csv], environment: environment, directory: directory)
        #expect(first.output.hasPrefix("posts: imported 1, updated 0, unchanged 0, rejected 1"), "\(first.output)")
        let ndjson = try write("""
            {"influencer_username": "tagger", "product_name": "세럼", "category": "beauty", "group_buying_start": "2026-12-01T00:00:00Z", "group_buying_end": "2026-12-02T00:00:00Z", "hashtags": ["#세럼", "skincare"], "post_type": "Video"}
            """, "p.ndjson", in: directory)
        let second = try await Market09Process.run(["import", "posts", ndjson], environment: environment, directory: directory)
        #expect(second.output == "posts: imported 1, updated 0, unchanged 0, rejected 0\n")
        let rows: [String] = try await database.pool.withConnection { connection in
            try connection.query("""
                SELECT product_name || '|' || coalesce(post_url, '') || '|' || coalesce(caption, '') || '|' || array_to_string(hashtags, ',')
                       || '|' || post_type FROM posts ORDER BY id
                """).map { try $0.decode(0) }
        }
        #expect(rows == ["크림|https://www.instagram.com/p/A1/|첫 줄\n둘째 줄|크림,skincare|Image", "세럼|||세럼,skincare|Video"])
        #expect(try await count(database, "SELECT posts FROM hashtag_counts WHERE tag = 'skincare'") == 2)
        await database.drop()
    }

    /// Errors a person can act on, in one line: before, a missing file was a raw
    /// `NSCocoaErrorDomain Code=260` dump, an unclosed quote "expected 6 columns, found 2",
    /// a binary file "imported 0, rejected 0" with exit 0, and a row named only its first
    /// broken rule.
    @Test func importErrorsSayWhatIsWrongInOneLine() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let environment = ["DATABASE_URL": database.url]
        let missing = try await Market09Process.run(["import", "posts", directory + "/nowhere.csv"], environment: environment, directory: directory)
        #expect(missing.code == 1 && missing.output == "market09: error: \(directory)/nowhere.csv does not exist\n", "\(missing.output)")

        let unclosed = try write("""
            influencer_username,product_name,category,group_buying_start,group_buying_end,caption
            beauty.kim,크림,beauty,2026-11-01T00:00:00Z,2026-11-30T00:00:00Z,"fine, quoted"
            beauty.kim,세럼,beauty,2026-11-01T00:00:00Z,2026-11-30T00:00:00Z,"never closed
            beauty.kim,토너,beauty,2026-11-01T00:00:00Z,2026-11-30T00:00:00Z,plain
            """, "unclosed.csv", in: directory)
        let quote = try await Market09Process.run(["import", "posts", unclosed], environment: environment, directory: directory)
        #expect(quote.code == 1)
        #expect(quote.output == "market09: error: \(unclosed): line 3: a quoted field is never closed (a \" missing?); everything after it would be one field\n",
                "\(quote.output)")

        let binary = directory + "/photo.csv"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: binary))
        let image = try await Market09Process.run(["import", "posts", binary], environment: environment, directory: directory)
        #expect(image.code == 1 && image.output.hasPrefix("market09: error: \(binary): the file is not UTF-8 text"), "\(image.output)")

        let everything = try write(#"{"influencer_username": "beauty.kim", "product_name": "", "category": "weapons", "price": "free", "group_buying_start": "soon", "group_buying_end": "2026-11-30T00:00:00Z"}"#,
                                   "wrong.ndjson", in: directory)
        let wrong = try await Market09Process.run(["import", "posts", everything], environment: environment, directory: directory)
        #expect(wrong.code == 1)
        let reason = try String(contentsOfFile: everything + ".rejects.ndjson", encoding: .utf8)
        for field in ["price", "category", "group_buying_start", "product_name"] { #expect(reason.contains(field), "\(field) not named in \(reason)") }
        #expect(try await count(database, "SELECT count(*) FROM posts") == 0)
        await database.drop()
    }

    @Test func malformedFilesAndUsageMistakesExitWithTheirCodes() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let environment = ["DATABASE_URL": database.url]
        let broken = try await Market09Process.run(["import", "posts", try write("[{\"a\": 1", "b.json", in: directory)], environment: environment, directory: directory)
        #expect(broken.code == 1)
        #expect(broken.output == "market09: error: \(directory)/b.json: the file is not a JSON array of objects\n")
        let unknownKind = try await Market09Process.run(["import", "likes", "x.csv"], environment: environment, directory: directory)
        #expect(unknownKind.code == 2)
        let noFormat = try await Market09Process.run(["import", "posts", "data.txt"], environment: environment, directory: directory)
        #expect(noFormat.output == "market09: cannot tell the format of data.txt; pass --format json|ndjson|csv\n")
        #expect(try await Market09Process.run(["import", "--help"], directory: directory).code == 0)
        #expect(try await Market09Process.run(["admin", "stats", "--verbose"], environment: environment, directory: directory).code == 2)
        await database.drop()
    }

    @Test func operatorsCreateUsersAndManageAdmins() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let environment = ["DATABASE_URL": database.url]
        let passwordFile = try write("operator-password\n", "pw", in: directory)
        let created = try await Market09Process.run(["/bin/sh", "-c", "exec \"$0\" admin create-user --email Ops@Example.com --password-stdin --admin < \(passwordFile)"],
                                                     environment: environment, directory: directory, viaShell: true)
        #expect(created.code == 0, "\(created.output)")
        #expect(created.output.hasPrefix("created admin "))

        let admins = try await Market09Process.run(["admin", "list-admins"], environment: environment, directory: directory)
        #expect(admins.output.contains("ops@example.com"))
        // The last admin is never removed: the console would have nobody to sign in.
        let last = try await Market09Process.run(["admin", "revoke-admin", "ops@example.com"], environment: environment, directory: directory)
        #expect(last.code == 1 && last.output.contains("last admin"), "\(last.output)")
        let second = try await Market09Process.run(["/bin/sh", "-c", "exec \"$0\" admin create-user --email second@example.com --password-stdin --admin < \(passwordFile)"],
                                                    environment: environment, directory: directory, viaShell: true)
        #expect(second.code == 0, "\(second.output)")
        #expect(try await Market09Process.run(["admin", "revoke-admin", "ops@example.com"], environment: environment, directory: directory).code == 0)
        #expect(try await Market09Process.run(["admin", "list-admins"], environment: environment, directory: directory).output.contains("ops@example.com") == false)
        // Each change is in the audit log, as the CLI's.
        let audit = try await Market09Process.run(["admin", "audit"], environment: environment, directory: directory)
        #expect(audit.code == 0 && audit.output.contains("user.role") && audit.output.contains("cli:"), "\(audit.output)")
        #expect(try await Market09Process.run(["admin", "grant-admin", "nobody@example.com"], environment: environment, directory: directory).code == 1)

        let stats = try await Market09Process.run(["admin", "stats"], environment: environment, directory: directory)
        #expect(stats.output.contains("users.permanent 2\n"))
        #expect(stats.output.contains("sessions.active 0\n"))
        #expect(stats.output.contains("posts.beauty 0\n"))
        await database.drop()
    }

    @Test func apiKeysAreShownOnceStoredHashedListedWithUseAndRevocable() async throws {
        let database = try await TestDatabase.migrated()
        let directory = try workspace()
        let environment = ["DATABASE_URL": database.url]
        func market09(_ arguments: String...) async throws -> (code: Int32, output: String) {
            try await Market09Process.run(["admin", "api-keys"] + arguments, environment: environment, directory: directory)
        }

        let created = try await market09("create", "--name", "n8n", "--scope", "ingest")
        #expect(created.code == 0, "\(created.output)")
        let text = try #require(created.output.split(separator: "\n").map(String.init).first { ServiceKeyText.looksLike($0, scope: .ingest) })
        let stored = try await database.pool.withConnection { try $0.query("SELECT encode(key_hash, 'hex') FROM service_api_keys").first!.decode(0, as: String.self) }
        #expect(stored == SHA256.digest(Data(text.utf8)).map { String(format: "%02x", $0) }.joined())
        #expect(try await market09("create", "--name", "n8n", "--scope", "ingest").code == 1)
        #expect(try await market09("create", "--name", "other", "--scope", "admin").code == 2)
        #expect(try await market09("create", "--name", "bad name", "--scope", "ingest").code == 2)
        #expect(try await market09("list").output.contains("n8n  ingest  live  created "))
        #expect(try await market09("list").output.contains("never used"))

        _ = try await PostgresServiceKeyRepository(pool: database.pool).use(text: text, at: Date(), counting: true)
        #expect(try await market09("list").output.contains("last used "))
        #expect(try await market09("revoke", "n8n").code == 0)
        #expect(try await market09("list").output.contains("n8n  ingest  revoked "))
        #expect(try await PostgresServiceKeyRepository(pool: database.pool).use(text: text, at: Date(), counting: true) == nil)
        #expect(try await market09("revoke", "nobody").code == 1)
        await database.drop()
    }
}
