@testable import App
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Synchronization
import TestSupport
import Testing
import Workers

/// A read whose client closed its connection learns it (through ``AbandonedReads`` and the
/// engine's peek of the socket), so the pool can skip it; a write never does.
@Suite struct AbandonedReadTests {
    /// Polls the request scope's presence check for up to 3 s: whether the client was seen gone.
    private static func waitForLeave(_ scope: RequestScope) async -> Bool? {
        guard let hasLeft = scope.clientHasLeft else { return nil }
        for _ in 0..<150 {
            if hasLeft() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func aReadSeesItsClientLeaveAndOneStillConnectedDoesNot() async throws {
        let seen = Mutex<[String: Bool?]>([:])
        let logs = LogCapture()
        let endpoints = Endpoints(middleware: [AbandonedReads()])
        let routes = [
            endpoints.route("GET", "/wait") { _, context in
                let left = await Self.waitForLeave(context.scope)
                seen.withLock { $0["GET /wait"] = left }
                return .json(["left": left ?? false])
            },
            endpoints.route("POST", "/wait") { _, context in
                seen.withLock { $0["POST /wait"] = .some(context.scope.clientHasLeft?()) }
                return .json(["ok": true])
            },
            endpoints.route("GET", "/now") { _, context in .json(["left": context.scope.clientHasLeft?() ?? true]) },
        ]
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = MicroHTTPServer(configuration: configuration,
                                     responder: RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger),
                                     logger: logs.logger)
        try server.start()
        let port = server.port
        // A connected client: the read sees it there.
        let connected = try await RawHTTPClient.request("GET", "/now", port: port)
        #expect(String(decoding: connected.body, as: UTF8.self) == #"{"left":false}"#)
        // A client that sends its read and closes: the handler sees it leave.
        try await BlockingWork.run {
            let descriptor = try RawHTTPClient.connect(port: port, timeoutSeconds: 2)
            _ = "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n".withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            Thread.sleep(forTimeInterval: 0.2)
            close(descriptor)
        }
        for _ in 0..<200 where seen.withLock({ $0["GET /wait"] == nil }) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(seen.withLock { $0["GET /wait"] } == .some(.some(true)))
        // A write is never offered the choice.
        let write = try await RawHTTPClient.request("POST", "/wait", port: port)
        #expect(write.status == 200)
        #expect(seen.withLock { $0["POST /wait"] } == .some(.none))
        await server.shutdown(gracePeriod: .seconds(2))
    }
}
