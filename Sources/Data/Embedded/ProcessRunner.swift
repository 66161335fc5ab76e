import Foundation

/// Runs a command to completion and captures its combined output. Blocking: call it from a
/// thread you own (see ``BlockingWork``) or before the server starts.
///
/// Uses `posix_spawn` and `waitpid` directly. Output goes to a temporary file rather than
/// a pipe, because `pg_ctl start` leaves a server running that would inherit a pipe and
/// keep it open forever.
enum ProcessRunner {
    struct Failure: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        let output: String
        var description: String {
            let lastLines = output.split(separator: "\n").suffix(5).joined(separator: " | ")
            return "\(command) exited with status \(status): \(lastLines)"
        }
    }

    /// Runs `arguments[0]` (an absolute path) with the rest as its arguments; throws
    /// ``Failure`` on a non-zero exit. `environment` replaces the inherited one when given.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("market09-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environmentLines) { envp in
                posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
            }
        }
        guard spawned == 0 else {
            throw Failure(command: name, status: -1, output: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let exited = status & 0x7F == 0
        let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        guard code == 0 else { throw Failure(command: name, status: code, output: output) }
        return output
    }

    /// Calls `body` with a NULL-terminated `char *[]` of `strings`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
