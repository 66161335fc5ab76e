import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import ProcessSupport
import Synchronization
import TestSupport
import Testing

/// `kill -9` of PostgreSQL in the middle of a like/unlike storm loses no acknowledged
/// write, answers 503 meanwhile (never 500), and serves again soon after it returns.
@Suite struct CrashSafetyTests {
    private final class StopFlag: Sendable {
        private let raised = Atomic<Bool>(false)
        private let acknowledged = Atomic<Int>(0)
        var isRaised: Bool { raised.load(ordering: .relaxed) }
        func raise() { raised.store(true, ordering: .relaxed) }
        /// Requests answered 200 so far.
        var successes: Int { acknowledged.load(ordering: .relaxed) }
        func succeeded() { acknowledged.add(1, ordering: .relaxed) }

        /// Waits until `count` more requests than `base` were answered 200 (20 s at most):
        /// the storm is measured in acknowledged writes, not in time, so a loaded test run
        /// (it once saw 45 in the time the test used to give) still checks enough of them.
        func awaitSuccesses(_ count: Int, after base: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while successes < base + count {
                guard ContinuousClock.now < deadline else { throw TestEnvironmentError("only \(successes - base) of \(count) writes acknowledged in 20 s") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private struct Outcome: Sendable {
        let user: Int
        let post: Int
        let like: Bool
        let status: Int
        let answeredAt: ContinuousClock.Instant
    }

    @Test func killingPostgresDuringALikeStormLosesNoAcknowledgedWrite() async throws {
        let cluster = try await ThrowawayCluster.start(durableCommits: true)
        let pool = PostgresPool(.init(url: cluster.url, size: 4, connectTimeoutSeconds: 2))
        try await Migrator(pool: pool, migrations: TestDatabase.migrations()).migrate()

        let users = 16, posts = 8
        let userIDs = (0..<users).map { _ in UUID() }
        let postIDs: [Int] = try await pool.withConnection { connection in
            for id in userIDs { try connection.execute("INSERT INTO users (id, is_anonymous) VALUES (\(id), false)") }
            let influencer: Int = try connection.query("INSERT INTO influencers (username) VALUES ('crash.test') RETURNING id").first!.decode(0)
            return try (0..<posts).map { index in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                    VALUES (\(influencer), \("crash \(index)"), 'food', now() - interval '1 day', now() + interval '1 day') RETURNING id
                    """).first!.decode(0)
            }
        }

        let auth = AuthSettings(signingKeys: [AuthSettings.key(secret: TestApp.secret)])
        let logs = LogCapture()
        let dependencies = Application.Dependencies.live(pool: pool, auth: auth, logger: logs.logger)
        // As serve starts it: writes are refused until the revocation poll has read the feed.
        try await dependencies.revocations.start()
        let responder = Application.makeResponder(dependencies: dependencies, auth: auth, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger)
        let codec = AccessTokenCodec(keys: auth.signingKeys, issuer: auth.issuer, audience: auth.audience)
        let now = Int(Date().timeIntervalSince1970)
        let tokens = userIDs.map { id in
            codec.sign(AccessTokenClaims(iss: auth.issuer, aud: auth.audience, sub: id.uuidString.lowercased(), sid: UUID().uuidString.lowercased(),
                                         role: "user", isAnonymous: false, iat: now, exp: now + 3600))
        }

        let stop = StopFlag()
        async let storm = withTaskGroup(of: [Outcome].self) { group in
            for user in 0..<users {
                group.addTask {
                    var outcomes: [Outcome] = []
                    var generator = SystemRandomNumberGenerator()
                    while !stop.isRaised, !Task.isCancelled {  // cancelled if the test throws
                        let post = Int.random(in: 0..<posts, using: &generator)
                        let like = Bool.random(using: &generator)
                        let request = HTTPRequest(method: like ? "PUT" : "DELETE", path: "/v1/posts/\(postIDs[post])/like",
                                                  headers: HTTPHeaders([("Authorization", "Bearer \(tokens[user])")]))
                        let response = await responder.respond(to: request)
                        outcomes.append(Outcome(user: user, post: post, like: like, status: response.status, answeredAt: .now))
                        if response.status == 200 { stop.succeeded() }
                        if response.status != 200 { try? await Task.sleep(for: .milliseconds(20)) }
                    }
                    return outcomes
                }
            }
            return await group.reduce(into: [Outcome]()) { $0 += $1 }
        }

        try await stop.awaitSuccesses(60, after: 0)
        try await cluster.kill9()
        try await Task.sleep(for: .milliseconds(700))
        try await cluster.restartAfterCrash()
        let back = ContinuousClock.now
        let beforeRestart = stop.successes
        try await Task.sleep(for: .milliseconds(500))
        try await stop.awaitSuccesses(60, after: beforeRestart)
        stop.raise()
        let outcomes = await storm

        #expect(Set(outcomes.map(\.status)).isSubset(of: [200, 503]), "statuses: \(Set(outcomes.map(\.status)))")
        #expect(outcomes.contains { $0.status == 503 }, "the outage was not noticed")
        let firstSuccessAfter = outcomes.filter { $0.status == 200 && $0.answeredAt > back }.map(\.answeredAt).min()
        let recovered = try #require(firstSuccessAfter, "no request succeeded after PostgreSQL came back")
        #expect(recovered - back < .seconds(2), "first 200 came \(recovered - back) after PostgreSQL was back")
        #expect(outcomes.filter { $0.status == 200 }.count > 100)

        // Per user and post, the last answered 200 decides the row, unless a later request
        // failed (it may or may not have committed before the crash).
        let liked: Set<[Int]> = try await pool.withConnection { connection in
            Set(try connection.query("SELECT user_id, post_id FROM likes").map { row in
                [userIDs.firstIndex(of: try row.decode(0))!, postIDs.firstIndex(of: try row.decode(1))!]
            })
        }
        var lost = 0
        for user in 0..<users {
            for post in 0..<posts {
                let history = outcomes.filter { $0.user == user && $0.post == post }.sorted { $0.answeredAt < $1.answeredAt }
                guard let lastAcknowledged = history.lastIndex(where: { $0.status == 200 }),
                      !history[(lastAcknowledged + 1)...].contains(where: { $0.status != 200 }) else { continue }
                if liked.contains([user, post]) != history[lastAcknowledged].like { lost += 1 }
            }
        }
        #expect(lost == 0, "\(lost) acknowledged likes or unlikes were lost")
        let wrongCounts: Int = try await pool.withConnection { connection in
            try connection.query("SELECT count(*)::int FROM posts p WHERE likes_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id)").first!.decode(0)
        }
        #expect(wrongCounts == 0)
        await dependencies.revocations.stop()
        await pool.close()
        await cluster.destroy()
    }
}
