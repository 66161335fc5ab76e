import Foundation
import ProcessSupport
import TestSupport
import Testing

/// The README's walkthrough, its `sh` blocks taken from the file as a reader copies them and
/// run in one bash, in order, against `market09 serve` over the demo data: the front page
/// cannot drift from what the server does.
@Suite struct WalkthroughTests {
    /// The `sh` blocks of the README's "Walkthrough" section, in order.
    static func blocks() throws -> [String] {
        let readme = try String(contentsOf: TestDatabase.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n## Walkthrough\n") else { throw TestEnvironmentError("the README has no Walkthrough section") }
        let section = readme[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return section[..<end].matches(of: /```sh\n([\s\S]*?)```/).map { String($0.1) }
    }

    @Test func theReadmeWalkthroughRunsAsWrittenAgainstAServer() async throws {
        let blocks = try Self.blocks()
        #expect(blocks.count >= 4)
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-walk-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeded = try await Market09Process.run(["seed", "demo"], environment: ["DATABASE_URL": database.url], directory: directory)
        try #require(seeded.code == 0, "\(seeded.output)")
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0"],
                                         directory: directory)
        let port = try await server.waitUntilListening()

        let script = "set -euo pipefail\ncd \(directory)\n" + blocks.joined(separator: "\n")
        var environment = ProcessInfo.processInfo.environment
        environment["BASE"] = "http://127.0.0.1:\(port)"
        let run = try await ExternalCommand.run(["bash", "-c", script], environment: environment, timeoutSeconds: 120)
        #expect(run.code == 0, "\(run.output)")
        for expected in [#""has_next": true"#, #""provider": "email""#, #""liked": true"#, #""content_type": "image/png""#,
                         #""followed": true"#, "204", #""error": "session_revoked""#] {
            #expect(run.output.contains(expected), "\(expected) not in:\n\(run.output)")
        }

        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
