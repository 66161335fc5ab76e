import Foundation
import HTTPServer
import ProcessSupport
import TestSupport
import Testing

/// The ambiguous framings of RequestFramingTests sent through the shipped nginx and
/// HAProxy configurations (deploy/): however each front end frames them, the server
/// behind it never runs a request the front end did not see as one (request smuggling):
/// it answers no more requests than the client received answers for, and the hidden
/// `GET /hello` reaches it only as a request the client got its own answer to.
@Suite(.serialized) struct ProxyFramingTests {
    private static let root = TestDatabase.packageRoot

    /// An upstream with the routes the probes use, its request log captured.
    private static func upstream() throws -> (server: MicroHTTPServer, logs: LogCapture) {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let logs = LogCapture()
        let routes = [
            Route("GET", "/hello") { _, _ in .json(["hello": "world"]) },
            Route("POST", "/echo") { request, _ in .json(["bytes": request.body.count]) },
            Route("GET", "/ready") { _, _ in .json(["status": "ready"]) },
        ]
        let server = MicroHTTPServer(configuration: configuration, responder: RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger),
                                     logger: logs.logger)
        try server.start()
        return (server, logs)
    }

    /// Renders `template` with `values` and runs `command` on it; the balancer answers /ready.
    private static func startProxy(_ kind: String, directory: String, upstreamPort: Int) async throws -> Int {
        let port = try RawHTTPClient.connectableFreePort()
        let output = directory + "/\(kind).conf"
        let values: [String]
        let command: [String]
        if kind == "nginx" {
            values = ["RUN_DIR=\(directory)", "ERROR_LOG=\(directory)/nginx.error.log", "DAEMON=on", "LISTEN=127.0.0.1:\(port)",
                      "SERVERS=server 127.0.0.1:\(upstreamPort);", "PROXY_BIND=", "CLIENT_CONNECTIONS=64", "CLIENT_RATE=1000r/s", "CLIENT_BURST=1000"]
            command = ["nginx", "-c", output]
        } else {
            values = ["RUN_DIR=\(directory)", "DAEMON=daemon", "LISTEN=127.0.0.1:\(port)", "SERVERS=server m1 127.0.0.1:\(upstreamPort)",
                      "DEPLOY_DIR=\(root.path)/deploy", "SOURCE="]
            command = ["haproxy", "-q", "-f", output]
        }
        let template = root.appendingPathComponent(kind == "nginx" ? "deploy/nginx/market09.conf" : "deploy/haproxy/market09.cfg").path
        let rendered = try await ExternalCommand.run([root.appendingPathComponent("deploy/render").path, template, output] + values, timeoutSeconds: 30)
        try #require(rendered.code == 0, "\(rendered.output)")
        let started = try await ExternalCommand.run(command, timeoutSeconds: 30)
        try #require(started.code == 0, "\(kind): \(started.output)")
        for _ in 0..<100 {
            if let ready = try? await RawHTTPClient.request("GET", "/ready", port: port), ready.status == 200 { return port }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestEnvironmentError("\(kind) never answered /ready")
    }

    private static func stopProxy(_ kind: String, directory: String) async {
        guard let pid = try? String(contentsOfFile: directory + "/\(kind).pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              let number = Int32(pid) else { return }
        kill(number, SIGTERM)
        for _ in 0..<50 where kill(number, 0) == 0 { try? await Task.sleep(for: .milliseconds(100)) }
    }

    @Test(arguments: ["nginx", "haproxy"])
    func noAmbiguousFramingSmugglesARequestThroughTheShippedProxy(_ kind: String) async throws {
        let directory = "/tmp/m09-proxy-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (server, logs) = try Self.upstream()
        let port = try await Self.startProxy(kind, directory: directory, upstreamPort: server.port)
        for probe in AmbiguousFraming.probes {
            let name = probe.name
            let before = logs.entries(message: "request").filter { $0["path"] as? String != "/ready" }.count
            let (text, _) = try await RawHTTPClient.conversation(probe.bytes, port: port, readSeconds: 1)
            // Let the upstream finish logging whatever the proxy passed on.
            try await Task.sleep(for: .milliseconds(50))
            let served = logs.entries(message: "request").filter { $0["path"] as? String != "/ready" }.dropFirst(before)
            let answered = RawHTTPClient.statuses(in: text)
            #expect(served.count <= answered.count, "\(kind), \(name): the server ran \(served.map { $0["path"] ?? "" }) for answers \(answered)")
            if served.contains(where: { $0["path"] as? String == "/hello" }) {
                #expect(text.contains(#"{"hello":"world"}"#), "\(kind), \(name): /hello ran but its answer never reached the client")
            }
        }
        await Self.stopProxy(kind, directory: directory)
        await server.shutdown(gracePeriod: .seconds(2))
        try? FileManager.default.removeItem(atPath: directory)
    }
}
