import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// PgBouncer in transaction mode in front of the primary: named prepared statements break
/// there (a server connection serves many clients), `DATABASE_STATEMENTS=unnamed` works.
@Suite struct PgBouncerTests {
    private func withPgBouncer(serverConnections: Int, _ body: (ThrowawayCluster, PgBouncerProcess) async throws -> Void) async throws {
        let cluster = try await ThrowawayCluster.start()
        let direct = PostgresPool(.init(url: cluster.url, size: 1))
        _ = try await Migrator(pool: direct, migrations: TestDatabase.migrations()).migrate()
        try await direct.withConnection { try $0.execute(script: "ALTER ROLE market09 SET statement_timeout = '2s'; ALTER ROLE market09 SET DateStyle = 'ISO, YMD'") }
        await direct.close()
        let bouncer = try await PgBouncerProcess(for: cluster, serverConnections: serverConnections)
        do {
            try await body(cluster, bouncer)
        } catch {
            await bouncer.stop()
            await cluster.destroy()
            throw error
        }
        await bouncer.stop()
        await cluster.destroy()
    }

    @Test func preparedModeIsRefusedAndUnnamedStatementsShareServerConnections() async throws {
        try await withPgBouncer(serverConnections: 1) { _, bouncer in
            // The default mode cannot even connect: PgBouncer refuses the start-up `options`
            // (and its named statements would meet other clients' on shared server connections).
            let prepared = PostgresPool(.init(url: bouncer.url, size: 1, statementMode: .prepared))
            await #expect { _ = try await prepared.withConnection { try $0.query("SELECT 1").count } } throws: { error in
                "\(error)".contains("unsupported startup parameter: options")
            }
            await prepared.close()

            // Four clients, one server connection, each statement unnamed: no collisions.
            let unnamed = (0..<4).map { _ in PostgresPool(.init(url: bouncer.url, size: 1, statementMode: .unnamed)) }
            for (index, pool) in unnamed.enumerated() {
                let sum: Int = try await pool.withConnection { try $0.query("SELECT \(index)::int + 1").first!.decode(0) }
                #expect(sum == index + 1)
            }
            for pool in unnamed { await pool.close() }
        }
    }

    @Test func theApplicationServesThroughPgBouncerWithUnnamedStatements() async throws {
        try await withPgBouncer(serverConnections: 2) { _, bouncer in
            let pool = PostgresPool(.init(url: bouncer.url, size: 8, statementTimeout: nil, statementMode: .unnamed))
            let app = try await TestApp.make(over: bouncer.url, pool: pool)
            do {
                let influencer = try await app.influencer("bouncer.deals")
                let post = try await app.post(influencer: influencer, name: "세럼", start: "2026-11-01T00:00:00Z", end: "2027-01-01T00:00:00Z")
                let signUp = try await app.send("POST", "/v1/auth/signup", json: ["email": "pooled@example.com", "password": "pooled-password"])
                #expect(signUp.status == 201)
                let session = try TestSession(signUp)
                // Eight likes and unlikes at once over 8 client connections sharing 2 server ones.
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<8 {
                        group.addTask { try await app.send(index.isMultiple(of: 2) ? "PUT" : "DELETE", "/v1/posts/\(post)/like", token: session.accessToken).status }
                    }
                    for try await status in group { #expect(status == 200) }
                }
                #expect(try await app.send("PUT", "/v1/posts/\(post)/like", token: session.accessToken).status == 200)
                let detail = try await app.send("GET", "/v1/posts/\(post)", token: session.accessToken)
                #expect(detail.json["likes_count"] as? Int == 1 && detail.json["is_liked"] as? Bool == true)
                for path in ["/v1/posts?limit=5", "/v1/posts/top10", "/v1/posts?search=%EC%84%B8%EB%9F%BC", "/v1/categories", "/v1/me/likes"] {
                    #expect(try await app.send("GET", path, token: session.accessToken).status == 200, "\(path)")
                }
                // The role's statement timeout holds through the pooler.
                let timeout: String = try await pool.withConnection { try $0.query("SHOW statement_timeout").first!.decode(0) }
                #expect(timeout == "2s")
                await app.close()
                await pool.close()
            } catch {
                await app.close()
                await pool.close()
                throw error
            }
        }
    }

    @Test func aPGOPTIONSInTheEnvironmentDoesNotReachPgBouncer() async throws {
        try await withPgBouncer(serverConnections: 1) { _, bouncer in
            // libpq sends PGOPTIONS as start-up `options` unless the connection names its own,
            // and PgBouncer refuses the connection for it.
            let directory = "/tmp/m09-pgoptions-" + UUID().uuidString.prefix(8).lowercased()
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try Market09Process(["serve"], environment: [
                "DATABASE_URL": bouncer.url, "DATABASE_STATEMENTS": "unnamed", "MIGRATE_ON_START": "false",
                "PGOPTIONS": "-c work_mem=64MB", "JWT_SECRET": TestApp.secret, "PORT": "0",
            ], directory: directory)
            let port = try await server.waitUntilListening()
            #expect(try await RawHTTPClient.request("GET", "/v1/categories", port: port).status == 200)
            _ = try await server.stop()
        }
    }
}
