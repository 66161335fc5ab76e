@testable import App
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// A request whose statement outlives the pool's timeout answers 503 `query_timeout`, and
/// the pool keeps answering everyone else meanwhile.
@Suite struct QueryTimeoutTests {
    @Test func aSlowStatementAnswers503QueryTimeoutWhileOthersAreServed() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 2, statementTimeout: .milliseconds(300)))
        let logs = LogCapture()
        let routes = [
            Route("GET", "/slow") { _, _ in
                try await pool.withConnection { _ = try $0.query("SELECT pg_sleep(10)") }
                return .json(["done": true])
            },
            Route("GET", "/fast") { _, _ in .json(["one": try await pool.withConnection { try $0.query("SELECT 1").first!.decode(0, as: Int.self) }]) },
        ]
        let responder = RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger, errors: ErrorResponses(logger: logs.logger))
        async let slow = responder.respond(to: HTTPRequest(method: "GET", path: "/slow"))
        try await Task.sleep(for: .milliseconds(50))
        let fast = await responder.respond(to: HTTPRequest(method: "GET", path: "/fast"))
        #expect(fast.status == 200)
        let timedOut = await slow
        #expect(timedOut.status == 503)
        #expect(String(decoding: timedOut.body, as: UTF8.self).contains(#""error":"query_timeout""#))
        #expect(timedOut.headers["Retry-After"] == "1")
        await pool.close()
        await database.drop()
    }
}
