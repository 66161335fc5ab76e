import Foundation
import Persistence
import TestSupport
import Workers

/// A test tool run as a child process (python3 with selenium, schemathesis): its exit code
/// and combined output, killed after `timeoutSeconds` so a stuck tool fails its test
/// instead of hanging the run.
public enum ExternalCommand {
    public static func run(_ arguments: [String], environment: [String: String]? = nil,
                           timeoutSeconds: Double) async throws -> (code: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("market09-tool-\(UUID().uuidString).out").path
        defer { unlink(output) }
        let child = try ChildProcess(["/usr/bin/env"] + arguments, environment: environment, outputPath: output)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let code = child.exitCodeIfExited() { return (code, child.output()) }
            try await Task.sleep(for: .milliseconds(50))
        }
        child.send(SIGKILL)
        _ = try await BlockingWork.run { child.waitForExit() }
        throw TestEnvironmentError("\(arguments.prefix(3).joined(separator: " ")) ran over \(Int(timeoutSeconds)) s: \(child.output().suffix(2000))")
    }
}

/// Swagger UI 5's files from the drf-spectacular-sidecar wheel (scripts/install-deps
/// --test installs it): the local copy `DOCS_ASSETS_DIR` serves in tests.
public enum SwaggerUICopy {
    public static func directory() async throws -> String {
        let located = try await ExternalCommand.run(["python3", "-c", """
            import importlib.util, os
            spec = importlib.util.find_spec("drf_spectacular_sidecar")
            print(os.path.join(os.path.dirname(spec.origin), "static", "drf_spectacular_sidecar", "swagger-ui-dist") if spec else "")
            """], timeoutSeconds: 30)
        let directory = located.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !directory.isEmpty else {
            throw TestEnvironmentError("Swagger UI's local copy is missing: run scripts/install-deps --test (scripts/test does)")
        }
        return directory
    }
}
