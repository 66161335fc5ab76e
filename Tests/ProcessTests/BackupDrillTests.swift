import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
import Synchronization
import TestSupport
import Testing
import Workers

/// The restore drill on the embedded default, as an operator would live it: the server
/// backs itself up (nothing configured), a steady write load runs (sign-ups, posts, likes,
/// uploads), an accident at T deletes many posts, writing goes on, and `market09 restore
/// --to T−1s` into a new directory brings back every write acknowledged before T−1 s and
/// nothing begun after T, served by `MARKET09_DATA_DIR=DIR market09 serve`.
@Suite(.serialized) struct BackupDrillTests {
    private static let environment = [
        "PORT": "0", "METRICS_PORT": "0", "RATE_LIMIT_ANONYMOUS_PER_HOUR": "1000000", "RATE_LIMIT_TOKEN_PER_5_MINUTES": "1000000",
        "PASSWORD_HASH_ITERATIONS": "10000", "UPLOADS_PER_HOUR": "1000000", "UPLOAD_MIN_FREE_BYTES": "0", "MAX_CONNECTIONS_PER_ADDRESS": "0",
    ]

    /// One write the load made: when it was sent and when it was acknowledged.
    struct Write: Sendable {
        enum Kind: Sendable { case user(token: String), post, like(post: Int, token: String), upload(name: String) }
        let kind: Kind
        let id: String
        let sent: Date
        let acknowledged: Date
    }

    /// The load's record, shared by its workers.
    final class Recorder: Sendable {
        let writes = Mutex<[Write]>([])
        private let counter = Mutex(0)

        func next() -> Int { counter.withLock { value in value += 1; return value } }

        func record(_ kind: Write.Kind, _ id: String, _ sent: Date) {
            writes.withLock { $0.append(Write(kind: kind, id: id, sent: sent, acknowledged: Date())) }
        }

        var all: [Write] { writes.withLock { $0 } }
    }

    private static func directory() throws -> String {
        let path = "/tmp/m09-drill-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func json(_ method: String, _ path: String, port: Int, token: String? = nil, body: [String: Any]? = nil) async throws -> RawHTTPResponse {
        var headers: [(String, String)] = body == nil ? [] : [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await RawHTTPClient.request(method, path, port: port, headers: headers,
                                               body: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data())
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// `market09 …` in `directory`, its exit code and output.
    private static func market09(_ arguments: [String], in directory: String, environment: [String: String] = [:]) async throws -> (code: Int32, output: String) {
        try await Market09Process.run(arguments, environment: Self.environment.merging(environment) { $1 }, directory: directory)
    }

    @Test func restoringToAMomentBeforeAnAccidentKeepsEveryAcknowledgedWriteAndNothingAfter() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try Market09Process(["serve"], environment: Self.environment, directory: directory)
        let port = try await server.waitUntilListening()
        try await server.waitForLine(message: "backup finished", timeoutSeconds: 120)

        // What the load writes to: three influencers (an import) and four members.
        try Data("username,full_name,followers_count\ndrill.kim,김,20000\ndrill.lee,이,30000\ndrill.park,박,40000\n".utf8)
            .write(to: URL(fileURLWithPath: directory + "/influencers.csv"))
        #expect(try await Self.market09(["import", "influencers", "influencers.csv"], in: directory).code == 0)
        var signedUp: [String] = []
        for index in 0..<4 {
            let signUp = try await Self.json("POST", "/v1/auth/signup", port: port, body: ["email": "drill\(index)@example.com", "password": "drill-password-\(index)"])
            signedUp.append(try #require(try signUp.jsonObject()["access_token"] as? String, "\(signUp.status)"))
        }
        let members = signedUp
        let influencers = try await Self.json("GET", "/v1/influencers?limit=10", port: port, token: members[0]).jsonObject()["data"] as? [[String: Any]] ?? []
        let influencerIDs = influencers.compactMap { $0["id"] as? Int }
        try #require(influencerIDs.count == 3, "\(influencers)")

        let recorder = Recorder()
        @Sendable func load(until end: Date, worker: Int) async throws {
            while Date() < end {
                let step = recorder.next()
                let member = members[step % members.count]
                let sent = Date()
                switch step % 4 {
                case 0:
                    let session = try await Self.json("POST", "/v1/auth/signup", port: port,
                                                      body: ["email": "drill-\(step)@example.com", "password": "drill-password-\(step)"])
                    if session.status == 201, let token = try session.jsonObject()["access_token"] as? String,
                       let user = try session.jsonObject()["user"] as? [String: Any], let id = user["id"] as? String {
                        recorder.record(.user(token: token), id, sent)
                    }
                case 1:
                    let start = Date().addingTimeInterval(86_400)
                    let post = try await Self.json("POST", "/v1/posts", port: port, token: member, body: [
                        "influencer_id": influencerIDs[step % 3], "product_name": "드릴 상품 \(step)", "category": "beauty", "price": step,
                        "group_buying_start": Self.iso(start), "group_buying_end": Self.iso(start.addingTimeInterval(3 * 86_400))])
                    if post.status == 201, let id = try post.jsonObject()["id"] as? Int { recorder.record(.post, String(id), sent) }
                case 2:
                    let posts = recorder.all.compactMap { if case .post = $0.kind { Int($0.id) } else { nil } }
                    guard let target = posts.randomElement() else { continue }
                    let like = try await Self.json("PUT", "/v1/posts/\(target)/like", port: port, token: member)
                    if like.status == 200 { recorder.record(.like(post: target, token: member), "\(target)", sent) }
                default:
                    let image = ImageFixtures.png(width: 2, height: 2, filler: 64) + Data("\(worker)-\(step)".utf8)
                    let upload = try await RawHTTPClient.request("POST", "/v1/uploads", port: port, headers: [
                        ("Authorization", "Bearer \(member)"), ("Content-Type", "multipart/form-data; boundary=b0undary-Xy"),
                    ], body: ImageFixtures.multipart([("file", "drill.png", "image/png", image)]))
                    if upload.status == 201, let url = try upload.jsonObject()["url"] as? String {
                        recorder.record(.upload(name: String(url.split(separator: "/").last ?? "")), url, sent)
                    }
                }
            }
        }
        func run(for seconds: Double) async throws {
            let end = Date().addingTimeInterval(seconds)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 { group.addTask { try await load(until: end, worker: worker) } }
                try await group.waitForAll()
            }
        }

        try await run(for: 4)
        // The accident: many posts deleted (as a mistaken admin command would).
        let accident = Date()
        let live = try EmbeddedPostgres(directory: URL(fileURLWithPath: directory + "/.market09"))
        let deleted = try await BlockingWork.run { () throws -> Int in
            let connection = try PostgresConnection(url: live.url())
            defer { connection.close() }
            return try connection.execute("DELETE FROM posts WHERE id IN (SELECT id FROM posts ORDER BY id LIMIT 1000)")
        }
        try await run(for: 2)
        // RPO: what a restore can reach trails the last write by the archive timeout (3 s).
        try await Task.sleep(for: .seconds(6))

        let moment = accident.addingTimeInterval(-1)
        let target = directory + "/restored"
        let precise = ISO8601DateFormatter()
        precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let restored = try await Self.market09(["restore", "--to", precise.string(from: moment), "--target", target], in: directory)
        #expect(restored.code == 0, "\(restored.output)")
        #expect(try await server.stop() == 0)
        // Promoted, it keeps no recovery target: a standby made from it later would stop there and promote itself.
        let settings = try String(contentsOfFile: target + "/pgdata/postgresql.auto.conf", encoding: .utf8)
        #expect(!settings.contains("recovery_target") && settings.contains("archive_command"), "\(settings)")

        let all = recorder.all
        let before = all.filter { $0.acknowledged < moment }
        let after = all.filter { $0.sent > accident }
        #expect(deleted > 10 && before.count > 40 && after.count > 10, "deleted \(deleted), \(before.count) writes before, \(after.count) after")
        // Every kind of write, on both sides of the accident.
        func kinds(_ writes: [Write]) -> Set<String> {
            Set(writes.map { switch $0.kind { case .user: "user"; case .post: "post"; case .like: "like"; case .upload: "upload" } })
        }
        #expect(kinds(before) == ["user", "post", "like", "upload"] && kinds(after).isSuperset(of: ["user", "post", "upload"]),
                "\(kinds(before)) before, \(kinds(after)) after")

        let again = try Market09Process(["serve"], environment: Self.environment.merging(["MARKET09_DATA_DIR": target]) { $1 }, directory: directory)
        let restoredPort = try await again.waitUntilListening()
        for write in before {
            switch write.kind {
            case .user(let token):
                #expect(try await Self.json("GET", "/v1/me", port: restoredPort, token: token).status == 200, "user \(write.id) signed up before T−1 s")
            case .post:
                #expect(try await Self.json("GET", "/v1/posts/\(write.id)", port: restoredPort, token: members[0]).status == 200, "post \(write.id) (deleted at T) is back")
            case .like(let post, let token):
                let seen = try await Self.json("GET", "/v1/posts/\(post)", port: restoredPort, token: token).jsonObject()
                #expect(seen["is_liked"] as? Bool == true, "the like of post \(post) acknowledged before T−1 s")
            case .upload(let name):
                let image = try await RawHTTPClient.request("GET", "/media/\(name)", port: restoredPort)
                #expect(image.status == 200 && image.header("content-type") == "image/png", "upload \(name)")
            }
        }
        // Likes with their counts: every post counts at least the likes acknowledged before
        // T−1 s and at most those sent before T.
        for post in Set(before.compactMap { if case .like(let post, _) = $0.kind { post } else { nil } }) {
            let count = try await Self.json("GET", "/v1/posts/\(post)", port: restoredPort, token: members[0]).jsonObject()["likes_count"] as? Int ?? -1
            // A member's likes of a post are one like (liking twice keeps one).
            func likers(_ writes: [Write]) -> Int { Set(writes.compactMap { if case .like(post, let token) = $0.kind { token } else { nil } }).count }
            let least = likers(before)
            let most = likers(all.filter { $0.sent < accident })
            #expect((least...most).contains(count), "post \(post): \(count) likes, expected \(least)...\(most)")
        }
        let database = try EmbeddedPostgres(directory: URL(fileURLWithPath: target))
        let present = try await BlockingWork.run { () throws -> (users: Set<String>, posts: Set<String>, uploads: Set<String>) in
            let connection = try PostgresConnection(url: database.url())
            defer { connection.close() }
            return (Set(try connection.query("SELECT id::text FROM users").map { try $0.decode(0, as: String.self) }),
                    Set(try connection.query("SELECT id::text FROM posts").map { try $0.decode(0, as: String.self) }),
                    Set(try connection.query("SELECT name FROM uploads").map { try $0.decode(0, as: String.self) }))
        }
        for write in after {
            switch write.kind {
            case .user: #expect(!present.users.contains(write.id), "user \(write.id) signed up after T")
            case .post: #expect(!present.posts.contains(write.id), "post \(write.id) made after T")
            case .upload(let name): #expect(!present.uploads.contains(name), "upload \(name) made after T")
            case .like: break
            }
        }
        // A copy served to look at writes nothing into the live one's repository: no timeline of its own there.
        let copied = try await Self.market09(["backup", "create"], in: directory, environment: ["MARKET09_DATA_DIR": target])
        #expect(copied.code == 1 && copied.output.contains("is a restored copy of"), "\(copied.output)")
        #expect(try await again.stop() == 0)
        #expect(again.process.output().contains("this directory is a restored copy of another: backups stay off here"))
        let archived = FileManager.default.enumerator(atPath: directory + "/.market09/backups/archive")?.allObjects as? [String] ?? []
        #expect(!archived.isEmpty && !archived.contains { ($0 as NSString).lastPathComponent.hasPrefix("00000002") }, "\(archived.filter { $0.contains("00000002") })")
    }

    /// Each restore and backup verb's mistakes answered with one clear line and its exit code.
    @Test func restoreAndBackupVerbsSayWhyTheyCannot() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let empty = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let none = try await Self.market09(["backup", "list"], in: empty)
        #expect(none.code == 1 && none.output.contains("no backups in \(empty)/.market09"), "\(none.output)")

        let server = try Market09Process(["serve"], environment: Self.environment, directory: directory)
        _ = try await server.waitUntilListening()
        try await server.waitForLine(message: "backup finished", timeoutSeconds: 120)
        let listed = try await Self.market09(["backup", "list"], in: directory)
        #expect(listed.code == 0 && listed.output.contains("restorable from") && listed.output.contains("F  full"), "\(listed.output)")

        let cases: [([String], Int32, String)] = [
            (["restore"], 2, "restore needs exactly one of --to TIME, --latest or --before-transaction XID"),
            (["restore", "--to", "yesterday"], 2, "--to needs a moment with its zone"),
            (["restore", "--to", "2026-12-05 10:00:00"], 2, "--to needs a moment with its zone"),
            (["restore", "--latest", "--in-place", "--target", "x"], 2, "--target and --in-place exclude each other"),
            (["restore", "--before-transaction", "abc"], 2, "--before-transaction needs a transaction id"),
            (["restore", "--to", "2001-01-01 00:00:00+09"], 1, "no backup covers that time: the earliest moment a restore can reach is"),
            (["restore", "--to", "2999-01-01 00:00:00+09"], 1, "that time has not come yet"),
            (["restore", "--latest", "--target", directory], 1, "is not empty"),
            (["restore", "--latest", "--in-place"], 1, "the server is running on"),
            (["backup", "create", "--type", "weekly"], 2, "--type is full, diff or incr"),
            (["restore", "--latest", "--backup", "20990101-000000F"], 1, "no backup 20990101-000000F in the repository"),
        ]
        for (arguments, code, message) in cases {
            let result = try await Self.market09(arguments, in: directory)
            #expect(result.code == code && result.output.contains(message), "\(arguments): \(result.code) \(result.output)")
        }
        let made = try await Self.market09(["backup", "create", "--type", "incr"], in: directory)
        #expect(made.code == 0 && made.output.contains("(incr) done in"), "\(made.output)")
        let verified = try await Self.market09(["backup", "verify"], in: directory)
        #expect(verified.code == 0 && verified.output.contains("no problem found"), "\(verified.output)")

        // Stopped, the archive ends where the server left it: a moment after that is out of reach.
        #expect(try await server.stop() == 0)
        let after = Date().addingTimeInterval(1)
        try await Task.sleep(for: .seconds(2))
        let precise = ISO8601DateFormatter()
        precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let beyond = try await Self.market09(["restore", "--to", precise.string(from: after), "--target", directory + "/beyond"], in: directory)
        #expect(beyond.code == 1 && beyond.output.contains("the archive ends before that moment"), "\(beyond.output)")
        // With the server stopped, in place works, and keeps the data it replaced.
        let inPlace = try await Self.market09(["restore", "--latest", "--in-place"], in: directory)
        #expect(inPlace.code == 0 && inPlace.output.contains("restored in place"), "\(inPlace.output)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory + "/.market09").filter { $0.hasPrefix("pgdata.before-restore-") }
        #expect(kept.count == 1, "\(kept)")
        let again = try Market09Process(["serve"], environment: Self.environment, directory: directory)
        _ = try await again.waitUntilListening()
        #expect(try await again.stop() == 0)
    }

    /// The disk is lost with the data directory on it; the repository was elsewhere
    /// (BACKUP_DIR): `market09 restore --latest` from the repository alone brings back the
    /// database, its secrets (a session signed before still works) and the media.
    @Test func afterLosingTheDataDirectoryTheRepositoryAloneRestoresEverything() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let repository = directory + "/other-disk/backups"
        let server = try Market09Process(["serve"], environment: Self.environment.merging(["BACKUP_DIR": repository]) { $1 }, directory: directory)
        let port = try await server.waitUntilListening()
        try await server.waitForLine(message: "backup finished", timeoutSeconds: 120)
        let session = try await Self.json("POST", "/v1/auth/signup", port: port, body: ["email": "before-the-loss@example.com", "password": "lost-disk-password"])
        #expect(session.status == 201)
        let token = try #require((try JSONSerialization.jsonObject(with: session.body) as? [String: Any])?["access_token"] as? String)
        try await Task.sleep(for: .seconds(5))  // archive_timeout: 3 s
        #expect(try await server.stop() == 0)
        try FileManager.default.removeItem(atPath: directory + "/.market09")

        let none = try await Self.market09(["restore", "--latest"], in: directory)
        #expect(none.code == 1 && none.output.contains("or BACKUP_DIR to the repository"), "\(none.output)")
        let restored = try await Self.market09(["restore", "--latest"], in: directory, environment: ["BACKUP_DIR": repository])
        #expect(restored.code == 0 && restored.output.contains("working from the repository"), "\(restored.output)")
        let made = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".market09-restored-") }
        try #require(made.count == 1, "\(made)")
        try FileManager.default.removeItem(atPath: directory + "/.market09")
        try FileManager.default.moveItem(atPath: directory + "/" + made[0], toPath: directory + "/.market09")
        let again = try Market09Process(["serve"], environment: Self.environment.merging(["BACKUP_DIR": repository]) { $1 }, directory: directory)
        let againPort = try await again.waitUntilListening()
        let me = try await Self.json("GET", "/v1/me", port: againPort, token: token)
        #expect(me.status == 200, "the session signed before the loss still works: \(me.status)")
        // Served where the lost one was, it is the live one: archiving and backups resume.
        try await again.waitForLine(message: "backup finished", timeoutSeconds: 120)
        #expect(try await again.stop() == 0)
        #expect(again.process.output().contains("this restored directory is the live one now"))
    }
}
