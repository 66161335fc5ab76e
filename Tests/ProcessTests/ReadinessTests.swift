@testable import App
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// `/ready` follows the database across a restart, over real sockets, with no restart of
/// the server.
@Suite struct ReadinessTests {
    @Test func readyAnswers503WhileTheDatabaseIsDownAnd200AfterItReturns() async throws {
        let cluster = try await ThrowawayCluster.start()
        let pool = PostgresPool(.init(url: cluster.url, size: 2, connectTimeoutSeconds: 2))
        try await Migrator(pool: pool, migrations: TestDatabase.migrations()).migrate()
        let logs = LogCapture()
        let responder = Application.makeResponder(dependencies: .live(pool: pool, auth: testAuth, logger: logs.logger), auth: testAuth, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger)
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = MicroHTTPServer(configuration: configuration, responder: responder, logger: logs.logger)
        try server.start()

        #expect(try await RawHTTPClient.request("GET", "/ready", port: server.port).status == 200)

        try await cluster.stop()
        let down = try await RawHTTPClient.request("GET", "/ready", port: server.port)
        #expect(down.status == 503)
        #expect(String(decoding: down.body, as: UTF8.self) == #"{"error":"database_unavailable","message":"The database is not reachable."}"#)
        let categoriesWhileDown = try await RawHTTPClient.request("GET", "/v1/categories", port: server.port)
        #expect(categoriesWhileDown.status == 503)
        #expect(try await RawHTTPClient.request("GET", "/health", port: server.port).status == 200)

        try await cluster.restart()
        #expect(try await RawHTTPClient.request("GET", "/ready", port: server.port).status == 200)
        #expect(try await RawHTTPClient.request("GET", "/v1/categories", port: server.port).status == 200)

        await server.shutdown(gracePeriod: .seconds(2))
        await pool.close()
        await cluster.destroy()
    }
}
