import Data
import Foundation

/// The built `market09` executable run as a child process, as an operator would run it.
public final class Market09Process: Sendable {
    /// The child.
    public let process: ChildProcess

    /// The executable built by `swift build` (the test command builds it first).
    public static func executablePath() throws -> String {
        let path = TestDatabase.packageRoot.appendingPathComponent(".build/debug/market09").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestEnvironmentError("\(path) is missing: run the tests with scripts/test, which builds it")
        }
        return path
    }

    /// Starts `market09 arguments…` in `directory` with `environment` added to ours. With
    /// `viaShell`, `arguments` is a shell command line whose `$0` is the executable (for
    /// redirections such as `< password-file`).
    public init(_ arguments: [String], environment: [String: String] = [:], directory: String, viaShell: Bool = false) throws {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "DATABASE_URL")
        merged.merge(environment) { $1 }
        let outputPath = directory + "/market09-\(UUID().uuidString.prefix(8)).log"
        let command = viaShell ? [arguments[0], arguments[1], arguments[2], try Self.executablePath()] + arguments.dropFirst(3) : [try Self.executablePath()] + arguments
        process = try ChildProcess(command, environment: merged, directory: directory, outputPath: outputPath)
    }

    /// Runs `market09 arguments…` to completion; returns its exit code and output.
    public static func run(_ arguments: [String], environment: [String: String] = [:], directory: String, viaShell: Bool = false) async throws -> (code: Int32, output: String) {
        let child = try Market09Process(arguments, environment: environment, directory: directory, viaShell: viaShell)
        let code = try await BlockingWork.run { child.process.waitForExit() }
        return (code, child.process.output())
    }

    /// Waits until the server logs its `listening` line and returns the port it bound.
    public func waitUntilListening(timeoutSeconds: Double = 60) async throws -> Int {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            for line in process.output().split(separator: "\n") where line.contains("\"message\":\"listening\"") {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let port = object["port"] as? Int {
                    return port
                }
            }
            if let code = process.exitCodeIfExited() {
                throw TestEnvironmentError("market09 exited with \(code) before listening: \(process.output())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestEnvironmentError("market09 did not start listening in time: \(process.output())")
    }

    /// Sends `signal` and waits for the exit code.
    public func stop(signal: Int32 = SIGTERM) async throws -> Int32 {
        process.send(signal)
        let process = process
        return try await BlockingWork.run { process.waitForExit() }
    }
}
