import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The official Supabase Python client (Tests/e2e/supabase_client.py) against `market09
/// serve` with the compatible surface on, over the demo data: anonymous sign-in, the
/// session, list and Top 10 through functions, likes through the table, an ID-token link,
/// refresh, update_user, sign-out and the error cases, each decoded by the client.
@Suite struct SupabaseClientTests {
    @Test func theOfficialPythonClientRunsTheAppsFlows() async throws {
        let root = TestDatabase.packageRoot
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-supabase-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeded = try await Market09Process.run(["seed", "demo"], environment: ["DATABASE_URL": database.url], directory: directory)
        try #require(seeded.code == 0, "\(seeded.output)")
        let post: Int = try await database.pool.withConnection { connection in
            try connection.query("SELECT id FROM posts WHERE group_buying_start <= now() AND group_buying_end > now() ORDER BY id LIMIT 1").first!.decode(0)
        }
        let provider = try await TestIdentityProvider.make()
        let clientID = "com.09market.app"
        let idToken = try await provider.idToken(claims: TestIdentityProvider.claims(
            issuer: "https://accounts.google.com", audience: clientID, subject: "python-\(UUID().uuidString)", email: "python@gmail.com"))
        let anonKey = "python-anon-key-" + UUID().uuidString.lowercased()
        let server = try Market09Process(["serve"], environment: [
            "DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0", "PASSWORD_HASH_ITERATIONS": "10000",
            "SUPABASE_ANON_KEY": anonKey, "GOOGLE_CLIENT_IDS": clientID, "GOOGLE_JWKS": provider.jwksPath, "REFRESH_REUSE_GRACE_SECONDS": "1",
        ], directory: directory)
        let port = try await server.waitUntilListening()

        var environment = ProcessInfo.processInfo.environment
        environment["M09_URL"] = "http://127.0.0.1:\(port)"
        environment["M09_ANON_KEY"] = anonKey
        environment["M09_JWT_SECRET"] = TestApp.secret
        environment["M09_ID_TOKEN"] = idToken
        environment["M09_POST_ID"] = String(post)
        let run = try await ExternalCommand.run(["python3", root.appendingPathComponent("Tests/e2e/supabase_client.py").path],
                                                environment: environment, timeoutSeconds: 300)
        #expect(run.code == 0, "the client scenario failed:\n\(run.output.suffix(8_000))")
        #expect(run.output.contains("ok: 12 steps"), "\(run.output.suffix(4_000))")

        #expect(try await server.stop(signal: SIGTERM) == 0)
        let serverLog = server.process.output()
        #expect(!serverLog.contains("\"level\":\"error\""), "the server logged errors:\n\(serverLog.suffix(4_000))")
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
