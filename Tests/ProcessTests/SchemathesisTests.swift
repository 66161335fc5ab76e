import Cryptography
import Domain
import Foundation
import Persistence
import ProcessSupport
import TestSupport
import Testing

/// schemathesis (PyPI) against `market09 serve` over the demo data: every operation of
/// openapi.yaml, all checks, all phases (examples, coverage, fuzzing, stateful), a seed
/// nobody chose (printed; `SCHEMATHESIS_SEED` replays one). It reports nothing: requests the contract allows are answered as it says, and
/// requests it forbids are refused. Tests/e2e holds the hooks (a fresh account per case,
/// the rules JSON Schema cannot state) and the configuration, each with its reason.
@Suite struct SchemathesisTests {
    @Test func theServerKeepsItsContractUnderFuzzing() async throws {
        let root = TestDatabase.packageRoot
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-fuzz-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeded = try await Market09Process.run(["seed", "demo"], environment: ["DATABASE_URL": database.url], directory: directory)
        try #require(seeded.code == 0, "\(seeded.output)")
        // ID-token sign-in is configured, with keys that verify nothing: such requests
        // reach verification (401) instead of provider_disabled.
        let keys = directory + "/no-keys.json"
        try Data(#"{"keys": []}"#.utf8).write(to: URL(fileURLWithPath: keys))
        let unlimited = "1000000"
        let server = try Market09Process(["serve"], environment: [
            "DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
            "PASSWORD_HASH_ITERATIONS": "10000", "DOCS_ASSETS_DIR": try await SwaggerUICopy.directory(),
            "RATE_LIMIT_ANONYMOUS_PER_HOUR": unlimited, "RATE_LIMIT_TOKEN_PER_5_MINUTES": unlimited,
            "RATE_LIMIT_FAILED_PASSWORD_PER_15_MINUTES": unlimited, "RATE_LIMIT_FAILED_PASSWORD_PER_ADDRESS_PER_15_MINUTES": unlimited,
            "GOOGLE_CLIENT_IDS": "fuzz-google", "GOOGLE_JWKS": keys, "APPLE_CLIENT_IDS": "fuzz-apple", "APPLE_JWKS": keys,
            "SUPABASE_ANON_KEY": TestApp.anonKey, "INGEST_REQUESTS_PER_MINUTE": "100000",
            // Uploads are judged on their content here, not on the test machine's free disk.
            "UPLOAD_MIN_FREE_BYTES": "0",
        ], directory: directory)
        let port = try await server.waitUntilListening()

        var environment = ProcessInfo.processInfo.environment
        environment["SCHEMATHESIS_HOOKS"] = "schemathesis_hooks"
        environment["M09_ANON_KEY"] = TestApp.anonKey
        let ingestKey = ServiceKeyText.prefix(.ingest) + Base64URL.encode(CryptoPrimitives.randomBytes(32))
        _ = try await PostgresServiceKeyRepository(pool: database.pool).create(name: "schemathesis", scope: .ingest, text: ingestKey)
        environment["M09_INGEST_KEY"] = ingestKey
        environment["PYTHONPATH"] = root.appendingPathComponent("Tests/e2e").path
        let e2e = root.appendingPathComponent("Tests/e2e")
        let seed = ProcessInfo.processInfo.environment["SCHEMATHESIS_SEED"] ?? String(UInt32.random(in: 1...UInt32.max))
        print("schemathesis seed: \(seed) (SCHEMATHESIS_SEED=\(seed) scripts/test --filter SchemathesisTests replays it)")
        let run = try await ExternalCommand.run([
            "python3", "-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
            "--config-file", e2e.appendingPathComponent("schemathesis.toml").path,
            "run", root.appendingPathComponent("openapi.yaml").path, "--url", "http://127.0.0.1:\(port)",
            "--checks", "all", "--seed", seed, "--generation-database", "none", "--max-examples", "40", "--workers", "1", "--no-color",
        ], environment: environment, timeoutSeconds: 900)
        #expect(run.code == 0, "schemathesis (seed \(seed)) reported failures:\n\(run.output.suffix(12_000))")
        #expect(run.output.contains("Stateful"), "the stateful phase did not run:\n\(run.output.suffix(4_000))")

        #expect(try await server.stop(signal: SIGTERM) == 0)
        let serverLog = server.process.output()
        #expect(!serverLog.contains("\"level\":\"error\""), "the server logged errors:\n\(serverLog.suffix(4_000))")
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
