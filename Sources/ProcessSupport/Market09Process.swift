import Foundation
import Persistence
import TestSupport
import Workers

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

    /// A process its test left running (it failed before stopping it) is killed, so a
    /// failed test leaves no server behind to load the rest of the run.
    deinit {
        guard !process.hasExited, process.exitCodeIfExited() == nil else { return }
        process.send(SIGKILL)
        _ = process.waitForExit()
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

    /// Runs `market09 arguments…` to completion; returns its exit code and output, less
    /// the `market09: database: …` line every database command starts with (one test
    /// asserts it: `oneShotCommandsSayWhichDatabaseTheyUse`), unless `keepingDatabaseLine`.
    public static func run(_ arguments: [String], environment: [String: String] = [:], directory: String, viaShell: Bool = false,
                           keepingDatabaseLine: Bool = false) async throws -> (code: Int32, output: String) {
        let child = try Market09Process(arguments, environment: environment, directory: directory, viaShell: viaShell)
        let code = try await child.waitForExit(timeoutSeconds: 300)
        let output = child.process.output()
        guard !keepingDatabaseLine else { return (code, output) }
        return (code, output.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("market09: database: ") }.joined(separator: "\n"))
    }

    /// Waits until the server logs its `listening` line and returns the port it bound.
    public func waitUntilListening(timeoutSeconds: Double = 60) async throws -> Int {
        let line = try await waitForLine(message: "listening", timeoutSeconds: timeoutSeconds)
        guard let port = line["port"] as? Int else { throw TestEnvironmentError("no port in the listening line: \(line)") }
        return port
    }

    /// Waits (polling every 2 ms) until the process logs a line with `message`; returns
    /// that line's fields.
    @discardableResult
    public func waitForLine(message: String, timeoutSeconds: Double = 60) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        let needle = "\"message\":\"\(message)\""
        while Date() < deadline {
            for line in process.output().split(separator: "\n") where line.contains(needle) {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { return object }
            }
            if let code = process.exitCodeIfExited() {
                throw TestEnvironmentError("market09 exited with \(code) before logging \(message): \(process.output())")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw TestEnvironmentError("market09 did not log \(message) in time: \(process.output())")
    }

    /// Sends `signal` and waits for the exit code.
    public func stop(signal: Int32 = SIGTERM, timeoutSeconds: Double = 60) async throws -> Int32 {
        process.send(signal)
        return try await waitForExit(timeoutSeconds: timeoutSeconds)
    }

    /// The exit code once the process exits. A process still running after
    /// `timeoutSeconds` is killed (SIGKILL) and the wait throws with its output: a server
    /// that ignores SIGTERM fails its test instead of hanging the whole run.
    public func waitForExit(timeoutSeconds: Double) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let code = process.exitCodeIfExited() { return code }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.send(SIGKILL)
        let process = process
        _ = try await BlockingWork.run { process.waitForExit() }
        throw TestEnvironmentError("market09 did not exit within \(Int(timeoutSeconds)) s: \(process.output())")
    }
}
