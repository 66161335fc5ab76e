import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The server keeps the live posts' gram index (`LiveSearchIndex`) in the background: built
/// at its first start on a database without one, and a build in progress never holds up a
/// stop (it is cancelled, and the next start builds it again).
@Suite struct LiveSearchIndexJobTests {
    @Test func theServerBuildsTheIndexAndStopsAtOnceDuringABuild() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-live-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0", "METRICS": "false", "MIGRATE_ON_START": "false"]
        // An open transaction that wrote to posts: a concurrent index build waits for it to end.
        let holder = Task {
            try await ExternalCommand.run(["psql", database.url, "-Atc",
                                           "BEGIN; LOCK TABLE posts IN ROW EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT"], timeoutSeconds: 90)
        }
        var holding = false
        for _ in 0..<100 where !holding {
            holding = try await Self.psql(database.url, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                                          + "WHERE l.relation = 'posts'::regclass AND l.mode = 'RowExclusiveLock' AND a.query LIKE '%pg_sleep(60)%'") == "1"
            if !holding { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(holding)
        let first = try Market09Process(["serve"], environment: environment, directory: directory)
        _ = try await first.waitUntilListening(timeoutSeconds: 30)
        var building = false
        for _ in 0..<100 where !building {
            building = try await Self.psql(database.url, "SELECT count(*) FROM pg_stat_progress_create_index p JOIN pg_stat_activity a USING (pid) "
                                           + "WHERE a.application_name = 'market09 live search index'") == "1"
            if !building { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(building, "no build started")
        let stopping = ContinuousClock.now
        #expect(try await first.stop(signal: SIGTERM, timeoutSeconds: 30) == 0)
        #expect(ContinuousClock.now - stopping < .seconds(10), "the stop waited for the build")
        _ = try await Self.psql(database.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()")
        _ = try? await holder.value
        // The cancelled build left its index invalid; the next start drops it and builds it.
        #expect(try await Self.psql(database.url, "SELECT string_agg(c.relname || ' ' || i.indisvalid, ',') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                                    + "WHERE c.relname LIKE 'posts\\_search\\_live\\_%'").hasSuffix(" false"))
        let second = try Market09Process(["serve"], environment: environment, directory: directory)
        let built = try await second.waitForLine(message: "live search index built", timeoutSeconds: 30)
        #expect((built["index"] as? String)?.hasPrefix("posts_search_live_") == true)
        #expect(try await Self.psql(database.url, "SELECT string_agg(c.relname || ' ' || i.indisvalid, ',') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                                    + "WHERE c.relname LIKE 'posts\\_search\\_live\\_%'").hasSuffix(" true"))
        #expect(try await second.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func psql(_ url: String, _ sql: String) async throws -> String {
        try await ExternalCommand.run(["psql", url, "-Atc", sql], timeoutSeconds: 30).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
