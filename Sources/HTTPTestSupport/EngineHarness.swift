import Foundation
import HTTPServer

/// A started server with a few routes that exercise the transport.
public struct EngineHarness: Sendable {
    public let server: MicroHTTPServer
    public let logs: LogCapture
    public var port: Int { server.port }

    public init(configure: (inout HTTPServerConfiguration) -> Void = { _ in }, slowHandlerDelay: Duration = .milliseconds(500)) throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        logs = LogCapture()
        let routes = [
            Route("GET", "/hello") { _, _ in .json(["hello": "세계"]) },
            Route("POST", "/echo") { request, _ in .json(["bytes": request.body.count]) },
            Route("GET", "/slow") { _, _ in
                try await Task.sleep(for: slowHandlerDelay)
                return .json(["slow": true])
            },
            Route("GET", "/query") { request, _ in .json(request.query) },
            Route(immediate: "GET", "/thread") { _ in .json(["thread": EngineHarness.threadName()]) },
            Route("GET", "/thread-async") { _, _ in .json(["thread": EngineHarness.threadName()]) },
        ]
        server = MicroHTTPServer(configuration: configuration, responder: RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger), logger: logs.logger)
        try server.start()
    }

    public func stop() async { await server.shutdown(gracePeriod: .seconds(5)) }

    /// The name of the calling thread, as the kernel knows it.
    public static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }
}
