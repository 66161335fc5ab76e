@testable import App
import Domain
import Fakes
import Foundation
import HTTPServer
import HTTPTestSupport
import PostgresDriver
import Server
import Testing

/// The request pipeline called in process, without sockets.
@Suite struct ResponderTests {
    private func responder(
        categories: any CategoryRepository = InMemoryCategoryRepository([Category(id: CategoryID(rawValue: "food"), name: "푸드")]),
        extraRoutes: [Route] = [],
        cors: CORSPolicy = CORSPolicy(allowedOrigins: []),
        logs: LogCapture = LogCapture()
    ) -> RoutingResponder {
        var dependencies = Application.Dependencies.live(pool: AppOverFakes.unusedPool, auth: AppOverFakes.auth, logger: logs.logger)
        dependencies.categories = categories
        dependencies.readiness = AppOverFakes.Ready()
        let app = Application.makeResponder(dependencies: dependencies, auth: AppOverFakes.auth, cors: cors, logger: logs.logger)
        guard !extraRoutes.isEmpty else { return app }
        return RoutingResponder(routes: extraRoutes, cors: cors, logger: logs.logger, errors: ErrorResponses(logger: logs.logger))
    }

    @Test func unknownPathsAnswer404InTheErrorShape() async throws {
        let response = await responder().respond(to: HTTPRequest(method: "GET", path: "/v1/nothing"))

        #expect(response.status == 404)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"not_found","message":"No resource at /v1/nothing."}"#)
    }

    @Test func wrongMethodsAnswer405WithAllow() async throws {
        let response = await responder().respond(to: HTTPRequest(method: "DELETE", path: "/v1/categories"))

        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"method_not_allowed","message":"DELETE is not allowed on /v1/categories."}"#)
    }

    @Test func aLiteralPathIsItsOwnResourceUnderEveryMethod() async throws {
        // PATCH /v1/posts/top10 was routed to PATCH /v1/posts/{id} and refused as a bad id.
        let response = await responder().respond(to: HTTPRequest(method: "PATCH", path: "/v1/posts/top10"))

        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
    }

    @Test func unexpectedErrorsBecomeAPlain500AndOnlyTheLogHasTheDetail() async throws {
        struct SecretFailure: Error, CustomStringConvertible { var description: String { "password=hunter2 at Repository.swift:12" } }
        let logs = LogCapture()
        let app = responder(extraRoutes: [Route("GET", "/v1/boom") { _, _ in throw SecretFailure() }], logs: logs)

        let response = await app.respond(to: HTTPRequest(method: "GET", path: "/v1/boom", requestID: "req-1"))

        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"internal_error","message":"An internal error occurred."}"#)
        let logged = logs.entries(message: "unhandled error")
        #expect(logged.count == 1)
        #expect(logged.first?["request_id"] as? String == "req-1")
        #expect((logged.first?["error"] as? String)?.contains("hunter2") == true)
    }

    @Test func aLostDatabaseAnswers503() async throws {
        let app = responder(extraRoutes: [Route("GET", "/v1/lost") { _, _ in throw PostgresError(code: .connectionFailure, message: "no route") }])

        let response = await app.respond(to: HTTPRequest(method: "GET", path: "/v1/lost"))

        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"database_unavailable","message":"The database is not reachable; retry shortly."}"#)
    }

    @Test func aValueTheDatabaseCannotHoldIsTheClients400NotA500() async throws {
        let app = responder(extraRoutes: [Route("GET", "/v1/nul") { _, _ in try Self.refuseNUL() }])
        let response = await app.respond(to: HTTPRequest(method: "GET", path: "/v1/nul"))
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("invalid_input"))
    }

    private static func refuseNUL() throws -> HTTPResponse {
        throw PostgresError(message: "a text parameter holds a NUL byte", sqlState: "22021")
    }

    @Test func badFieldsCarryTheFieldName() async throws {
        let app = responder(extraRoutes: [
            Route("GET", "/v1/items") { _, _ in throw APIError.invalidParameter("limit", "limit must be between 1 and 50") },
            Route("POST", "/v1/items") { _, _ in throw DomainError.invalid(field: "price", message: "price must not be negative") },
        ])

        let query = await app.respond(to: HTTPRequest(method: "GET", path: "/v1/items"))
        #expect(query.status == 400)
        #expect(String(decoding: query.body, as: UTF8.self) == #"{"error":"invalid_parameter","message":"limit must be between 1 and 50","field":"limit"}"#)

        let body = await app.respond(to: HTTPRequest(method: "POST", path: "/v1/items"))
        #expect(body.status == 400)
        #expect(String(decoding: body.body, as: UTF8.self) == #"{"error":"invalid_input","message":"price must not be negative","field":"price"}"#)
    }

    @Test func preflightsAreAnsweredForAllowedOriginsOnly() async throws {
        let app = responder(cors: CORSPolicy(allowedOrigins: ["https://app.09market.kr"]))
        func preflight(origin: String) async -> HTTPResponse {
            await app.respond(to: HTTPRequest(method: "OPTIONS", path: "/v1/categories", headers: HTTPHeaders([
                ("Origin", origin), ("Access-Control-Request-Method", "GET"),
            ])))
        }

        let allowed = await preflight(origin: "https://app.09market.kr")
        #expect(allowed.status == 204)
        #expect(allowed.headers["Access-Control-Allow-Origin"] == "https://app.09market.kr")
        #expect(allowed.headers["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS")

        let foreign = await preflight(origin: "https://evil.example")
        #expect(foreign.status == 204)
        #expect(foreign.headers["Access-Control-Allow-Origin"] == nil)

        let actual = await app.respond(to: HTTPRequest(method: "GET", path: "/v1/categories", headers: HTTPHeaders([("Origin", "https://app.09market.kr")])))
        #expect(actual.headers["Access-Control-Allow-Origin"] == "https://app.09market.kr")
        #expect(actual.headers["Vary"] == "Origin")
    }

    @Test func withoutConfiguredOriginsNoCORSHeadersAreSent() async throws {
        let response = await responder().respond(to: HTTPRequest(method: "GET", path: "/v1/categories", headers: HTTPHeaders([("Origin", "https://x.example")])))
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }
}
