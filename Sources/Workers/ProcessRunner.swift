import Foundation

/// Runs a command to completion and captures its combined output. Blocking: call it from a
/// thread you own (see ``BlockingWork``) or before the server starts.
public enum ProcessRunner {
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let status: Int32
        public let output: String
        public var description: String {
            let lastLines = output.split(separator: "\n").suffix(5).joined(separator: " | ")
            return "\(command) exited with status \(status): \(lastLines)"
        }
    }

    /// Runs `arguments[0]` (an absolute path) with the rest as its arguments; throws
    /// ``Failure`` on a non-zero exit. Output goes to a temporary file rather than a pipe,
    /// because `pg_ctl start` leaves a server running that would inherit a pipe and keep
    /// it open forever.
    @discardableResult
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("market09-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        let process: ChildProcess
        do {
            process = try ChildProcess(arguments, environment: environment, outputPath: outputPath)
        } catch {
            throw Failure(command: name, status: -1, output: String(describing: error))
        }
        let code = process.waitForExit()
        let output = process.output()
        guard code == 0 else { throw Failure(command: name, status: code, output: output) }
        return output
    }
}
