import App
import Domain
import Fakes
import Foundation
import HTTPServer
import Integrations
import Persistence
import ProcessSupport
import Synchronization
import TestSupport
import Testing

/// Influencer registration requests through the API, their verification through the HTTP
/// profile lookup (against a local fake service) and the admin CLI, against PostgreSQL.
@Suite struct InfluencerRequestsTests {
    @Test func requestsAreNormalisedUniqueAndListedForTheirRequester() async throws {
        try await withTestApp { app async throws in
            _ = try await app.influencer("already.here")
            let (_, anonymous) = try await app.user(anonymous: true)
            let (_, other) = try await app.user()

            let first = try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": " @Beauty.Kim "], token: anonymous)
            #expect(first.status == 202 && first.json["status"] as? String == "processing" && first.json["username"] as? String == "beauty.kim")
            let again = try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": "beauty.kim"], token: other)
            #expect(again.status == 200 && again.json["id"] as? Int == first.json["id"] as? Int)

            let conflict = try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": "@Already.Here"], token: other)
            #expect(conflict.status == 409 && conflict.errorCode == "influencer.conflict")
            for bad in ["", "@", "a b", ".dot", "dot.", "two..dots", String(repeating: "a", count: 31), "한글"] {
                let response = try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": bad], token: other)
                #expect(response.status == 400 && response.json["field"] as? String == "instagram_username", "\(bad): \(response.text)")
            }
            let mine = try await app.send("GET", "/v1/influencer-requests/mine", token: anonymous)
            #expect((mine.json["data"] as? [[String: any Sendable]])?.compactMap { $0["username"] as? String } == ["beauty.kim"])
            #expect(try await app.send("GET", "/v1/influencer-requests/mine", token: other).json["total"] as? Int == 0)
        }
    }

    @Test func concurrentRequestsForOneNameMakeOneAndAnAccountHasTenOpenAtMost() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": "same.name"], token: token).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 200, 200, 200, 200, 200, 200, 202])
            for index in 1..<10 {
                #expect(try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": "open\(index)"], token: token).status == 202)
            }
            let eleventh = try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": "open10"], token: token)
            #expect(eleventh.status == 409 && eleventh.errorCode == "influencer_request_limit")
        }
    }

    /// Before: an anonymous account requested a name early, the lookup failed it, and every
    /// later request for the name got the old `200 failed`, for good.
    @Test func aFailedRequestStandsForItsCoolOffThenAnyoneMayRequestTheNameAgain() async throws {
        try await withTestApp { app async throws in
            let (_, early) = try await app.user(anonymous: true)
            let (_, later) = try await app.user()
            let requests = PostgresInfluencerRequestRepository(pool: app.database.pool)
            let body: [String: any Sendable] = ["instagram_username": "early.bird"]
            let first = try await app.send("POST", "/v1/influencer-requests", json: body, token: early)
            let id = try #require(first.json["id"] as? Int)
            _ = try await requests.fail(id: id, reason: .insufficientFollowers)
            let standing = try await app.send("POST", "/v1/influencer-requests", json: body, token: later)
            #expect(standing.status == 200 && standing.json["status"] as? String == "failed" && standing.json["reason"] as? String == "insufficient_followers")

            try await app.database.pool.withConnection { try $0.execute("UPDATE influencer_requests SET updated_at = now() - interval '25 hours'") }
            let again = try await app.send("POST", "/v1/influencer-requests", json: body, token: later)
            #expect(again.status == 202 && again.json["status"] as? String == "processing" && again.json["id"] as? Int == id, "\(again.text)")
            #expect(again.json["reason"] is NSNull)
            let reopened = try #require(try await requests.request(idOrUsername: "early.bird"))
            #expect(reopened.attempts == 0)
            let mine = try await app.send("GET", "/v1/influencer-requests/mine", token: later)
            #expect((mine.json["data"] as? [[String: any Sendable]])?.first?["username"] as? String == "early.bird")
            #expect(try await app.send("GET", "/v1/influencer-requests/mine", token: early).json["total"] as? Int == 0)

            // An admin's rejection is a decision, not a failure: it stands.
            _ = try await requests.fail(id: id, reason: .rejected)
            try await app.database.pool.withConnection { try $0.execute("UPDATE influencer_requests SET updated_at = now() - interval '25 hours'") }
            let rejected = try await app.send("POST", "/v1/influencer-requests", json: body, token: early)
            #expect(rejected.status == 200 && rejected.json["reason"] as? String == "rejected")
        }
    }

    /// The profile service's answers, by username.
    private static func fakeLookup(calls: Counter) -> RoutingResponder {
        let profiles: [String: String] = [
            "big.public": #"{"username":"big.public","full_name":"빅 퍼블릭","biography":"공구 매일","profile_pic_url":"https://cdn.example/p.jpg","followers_count":52000,"external_url":"https://shop.example","is_private":false}"#,
            "small.one": #"{"username":"small.one","followers_count":500,"external_url":"https://shop.example","is_private":false}"#,
            "private.one": #"{"username":"private.one","followers_count":90000,"external_url":"https://shop.example","is_private":true}"#,
            "no.link": #"{"username":"no.link","followers_count":90000,"external_url":"javascript:alert(1)","is_private":false}"#,
        ]
        let route = Route("GET", "/profile") { request, _ in
            calls.add()
            #expect(request.headers["Authorization"] == "Bearer lookup-token")
            let name = request.query["username"] ?? ""
            if name == "flaky" { return HTTPResponse(status: 500) }
            guard let body = profiles[name] else { return HTTPResponse(status: 404) }
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Data(body.utf8))
        }
        return RoutingResponder(routes: [route], cors: CORSPolicy(allowedOrigins: []), logger: LogCapture().logger, errors: ErrorResponses(logger: LogCapture().logger))
    }

    @Test func theLookupDecidesEachRequestAndRetriesErrorsWithBackoff() async throws {
        // Requests are due from the database's now(); the verification's clock runs ahead of it.
        let clock = TestClock(start: Date().addingTimeInterval(300))
        try await withTestApp(clock: clock) { app async throws in
            let (_, token) = try await app.user()
            let names = ["big.public", "small.one", "private.one", "no.link", "ghost.account", "flaky"]
            for name in names {
                #expect(try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": name], token: token).status == 202)
            }
            let calls = Counter()
            var configuration = HTTPServerConfiguration()
            configuration.port = 0
            let fake = MicroHTTPServer(configuration: configuration, responder: Self.fakeLookup(calls: calls), logger: LogCapture().logger)
            try fake.start()
            let lookup = HTTPProfileLookup(url: URL(string: "http://127.0.0.1:\(fake.port)/profile")!, token: "lookup-token")
            let verification = InfluencerVerification(requests: app.dependencies.influencerRequests, lookup: lookup, rules: VerificationRules(),
                                                      now: { clock.now })
            #expect(try await verification.runOnce(batch: 10) == 5)
            var outcome: [String: String] = [:]
            for entry in try #require(try await app.send("GET", "/v1/influencer-requests/mine", token: token).json["data"] as? [[String: any Sendable]]) {
                outcome[entry["username"] as? String ?? ""] = (entry["status"] as? String ?? "") + "/" + (entry["reason"] as? String ?? "-")
            }
            #expect(outcome == ["big.public": "approved/-", "small.one": "failed/insufficient_followers", "private.one": "failed/private_account",
                                "no.link": "failed/no_external_url", "ghost.account": "failed/account_not_found", "flaky": "processing/-"])
            let influencers = try await app.send("GET", "/v1/influencers?search=big.public", token: token)
            let created = try #require((influencers.json["data"] as? [[String: any Sendable]])?.first)
            #expect(created["full_name"] as? String == "빅 퍼블릭" && created["followers_count"] as? Int == 52000)
            #expect(created["external_url"] as? String == "https://shop.example")

            // Not due again before its backoff; leased requests are not claimed twice.
            #expect(try await verification.runOnce() == 0)
            #expect(calls.value == 6)
            for _ in 2..<InfluencerVerification.maximumAttempts {
                clock.advance(by: 3600)
                #expect(try await verification.runOnce() == 0)
            }
            clock.advance(by: 3600)
            #expect(try await verification.runOnce() == 1)
            let flaky = try await app.dependencies.influencerRequests.request(idOrUsername: "flaky")
            #expect(flaky?.status == .failed && flaky?.reason == .lookupError && flaky?.attempts == InfluencerVerification.maximumAttempts)
            #expect(calls.value == 6 + InfluencerVerification.maximumAttempts - 1)
            await fake.shutdown(gracePeriod: .seconds(1))
        }
    }

    @Test func backoffDoublesFromThirtySecondsToAnHour() {
        #expect((1...9).map { InfluencerVerification.backoff(afterAttempts: $0) } == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600])
    }

    @Test func adminsListApproveAndRejectFromTheCLI() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09r-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let environment = ["DATABASE_URL": database.url]
        let requests = PostgresInfluencerRequestRepository(pool: database.pool)
        let user = UUID()
        try await database.pool.withConnection { try $0.execute("INSERT INTO users (id, is_anonymous, role) VALUES (\(user), true, 'user')") }
        for name in ["to.approve", "to.reject", "failed.first"] {
            _ = try await requests.submit(username: name, by: UserID(rawValue: user), openLimit: 10, retryAfter: 86_400)
        }

        let listed = try await Market09Process.run(["admin", "influencer-requests", "list", "--status", "processing"], environment: environment, directory: directory)
        #expect(listed.code == 0 && listed.output.contains("to.approve  processing") && listed.output.contains("to.reject  processing"), "\(listed.output)")
        let approved = try await Market09Process.run(["admin", "influencer-requests", "approve", "to.approve", "--full-name", "승인", "--followers", "12000",
                                                      "--external-url", "https://shop.example"], environment: environment, directory: directory)
        #expect(approved.code == 0 && approved.output.contains("to.approve  approved  influencer "), "\(approved.output)")
        let rejected = try await Market09Process.run(["admin", "influencer-requests", "reject", "to.reject"], environment: environment, directory: directory)
        #expect(rejected.code == 0 && rejected.output.contains("to.reject  failed (rejected)"), "\(rejected.output)")
        #expect(try await Market09Process.run(["admin", "influencer-requests", "reject", "to.reject"], environment: environment, directory: directory).code == 1)
        #expect(try await Market09Process.run(["admin", "influencer-requests", "approve", "nobody"], environment: environment, directory: directory).code == 1)
        // Before, a failed request could be neither approved nor retried ("is failed already").
        let retried = try await Market09Process.run(["admin", "influencer-requests", "retry", "to.reject"], environment: environment, directory: directory)
        #expect(retried.code == 0 && retried.output.contains("to.reject  processing"), "\(retried.output)")
        let failed = try #require(try await requests.request(idOrUsername: "failed.first"))
        _ = try await requests.fail(id: failed.id, reason: .insufficientFollowers)
        let approvedAfterFailing = try await Market09Process.run(["admin", "influencer-requests", "approve", "failed.first"], environment: environment,
                                                                 directory: directory)
        #expect(approvedAfterFailing.code == 0 && approvedAfterFailing.output.contains("failed.first  approved"), "\(approvedAfterFailing.output)")
        #expect(try await Market09Process.run(["admin", "influencer-requests", "retry", "to.approve"], environment: environment, directory: directory).code == 1)
        #expect(try await Market09Process.run(["admin", "influencer-requests", "list", "--status", "odd"], environment: environment, directory: directory).code == 2)
        #expect(try await Market09Process.run(["admin", "influencer-requests", "approve", "x", "--external-url", "ftp://x"], environment: environment,
                                              directory: directory).code == 2)
        let name = try await database.pool.withConnection {
            try $0.query("SELECT full_name || ' ' || followers_count FROM influencers WHERE username = 'to.approve'").first?.decode(0, as: String.self)
        }
        #expect(name == "승인 12000")
        try? FileManager.default.removeItem(atPath: directory)
        await database.drop()
    }
}

/// A count shared with a server's handler threads.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
