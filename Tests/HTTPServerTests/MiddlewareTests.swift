import Foundation
import HTTPServer
import HTTPTestSupport
import Synchronization
import Testing

/// The transport's chain, composed once per route (CORS, gzip, the entity tag, the error
/// mapping, then the product's steps), and the match carried from head to handler: called
/// in process, no socket.
@Suite struct MiddlewareTests {
    static let big = String(repeating: "가나다라마바사 ", count: 200)

    func responder(_ routes: [Route], origins: [String] = ["https://app.example"], gzip: Int = 1, middleware: [any Middleware] = []) -> RoutingResponder {
        RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: origins), logger: LogCapture().logger, gzipLevel: gzip, middleware: middleware)
    }

    func get(_ path: String, _ headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: "GET", path: path, headers: HTTPHeaders(headers))
    }

    @Test func aLargeJSONAnswerIsGzippedForAClientThatAcceptsIt() async {
        let app = responder([Route("GET", "/big") { _, _ in .json(["text": Self.big]) }])
        let plain = await app.respond(to: get("/big"))
        let zipped = await app.respond(to: get("/big", [("Accept-Encoding", "gzip")]))
        #expect(plain.headers["Content-Encoding"] == nil)
        #expect(zipped.headers["Content-Encoding"] == "gzip" && zipped.body.count < plain.body.count)
        #expect(zipped.headers["Vary"]?.contains("Accept-Encoding") == true)
    }

    @Test func levelZeroNeverCompresses() async {
        let app = responder([Route("GET", "/big") { _, _ in .json(["text": Self.big]) }], gzip: 0)
        #expect(await app.respond(to: get("/big", [("Accept-Encoding", "gzip")])).headers["Content-Encoding"] == nil)
    }

    @Test func aClientHoldingTheTagGets304AndTheGzippedTagIsWeak() async throws {
        let app = responder([Route("GET", "/big") { _, _ in .json(["text": Self.big]) }])
        let first = await app.respond(to: get("/big"))
        let tag = try #require(first.headers["ETag"])
        #expect(!tag.hasPrefix("W/"))
        let again = await app.respond(to: get("/big", [("If-None-Match", tag)]))
        #expect(again.status == 304 && again.body.isEmpty)
        let zipped = await app.respond(to: get("/big", [("Accept-Encoding", "gzip")]))
        let weak = try #require(zipped.headers["ETag"])
        #expect(weak.hasPrefix("W/"))
        let notModified = await app.respond(to: get("/big", [("Accept-Encoding", "gzip"), ("If-None-Match", weak)]))
        #expect(notModified.status == 304 && notModified.headers["Vary"]?.contains("Accept-Encoding") == true)
    }

    @Test func errorsAreAnsweredInsideTheChainWithCORSHeaders() async {
        struct Boom: Error {}
        let app = responder([Route("GET", "/boom") { _, _ in throw Boom() }])
        let answer = await app.respond(to: get("/boom", [("Origin", "https://app.example")]))
        #expect(answer.status == 500 && answer.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(String(decoding: answer.body, as: UTF8.self).contains("internal_error"))
    }

    @Test func anAPIErrorIsItsOwnAnswerWithItsHeaders() async {
        let app = responder([Route("GET", "/busy") { _, _ in throw APIError(status: 503, code: "busy", message: "later").with("Retry-After", "2") }])
        let answer = await app.respond(to: get("/busy"))
        #expect(answer.status == 503 && answer.headers["Retry-After"] == "2")
    }

    @Test func theProductsStepsRunInsideTheTransportsInOrder() async {
        final class Seen: Sendable { let names = Mutex<[String]>([]) }
        struct Mark: Middleware {
            let name: String
            let seen: Seen
            func respond(to request: HTTPRequest, context: RequestContext, next: Route.Handler) async throws -> HTTPResponse {
                seen.names.withLock { $0.append(name) }
                var response = try await next(request, context)
                response.headers.add("X-Step", name)
                return response
            }
        }
        let seen = Seen()
        let app = responder([Route("GET", "/x") { _, _ in .json(["ok": true]) }],
                            middleware: [Mark(name: "outer", seen: seen), Mark(name: "inner", seen: seen)])
        let answer = await app.respond(to: get("/x"))
        #expect(seen.names.withLock { $0 } == ["outer", "inner"])
        #expect(answer.headers.values(of: "X-Step") == ["inner", "outer"])
    }

    @Test func theHandlerReceivesTheMatchAndTheClientWithoutRoutingAgain() async {
        let seen = Mutex<(route: String, client: String?)?>(nil)
        let app = RoutingResponder(routes: [Route("POST", "/v1/posts/{id}/like") { request, context in
            seen.withLock { $0 = (context.route, context.client) }
            return .json(["id": request.pathParameters["id"] ?? ""])
        }], cors: CORSPolicy(allowedOrigins: []), logger: LogCapture().logger, trustedProxies: ["10.0.0.1"])
        let log = RequestLog()
        let request = HTTPRequest(method: "POST", path: "/v1/posts/42/like", headers: HTTPHeaders([("X-Forwarded-For", "203.0.113.9")]), remoteAddress: "10.0.0.1")
        let answer = await app.respond(to: request, log: log)
        #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self) == #"{"id":"42"}"#)
        #expect(seen.withLock { $0?.route } == "/v1/posts/{id}/like" && seen.withLock { $0?.client } == "203.0.113.9")
        #expect(log.route == "/v1/posts/{id}/like" && log.client == "203.0.113.9")
    }

    @Test func aForwardedAddressFromAnUntrustedPeerIsIgnored() async {
        let log = RequestLog()
        let app = responder([Route("GET", "/x") { _, _ in .json(["ok": true]) }])
        _ = await app.respond(to: HTTPRequest(method: "GET", path: "/x", headers: HTTPHeaders([("X-Forwarded-For", "203.0.113.9")]), remoteAddress: "198.51.100.7"), log: log)
        #expect(log.client == "198.51.100.7")
    }

    @Test func anUnmatchedPathIs404InTheErrorShapeAndItsRouteUnnamed() async {
        let log = RequestLog()
        let answer = await responder([]).respond(to: get("/nowhere"), log: log)
        #expect(answer.status == 404 && log.route == nil)
    }
}
