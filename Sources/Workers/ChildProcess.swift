import Foundation
import Synchronization

/// A child process started with `posix_spawn`, its standard input from `/dev/null` and its
/// standard output and error appended to one file.
///
/// Foundation's `Process` is avoided: on Linux its exit monitoring can miss a child whose
/// own children (a `pg_ctl`-started server) outlive it. Waiting here is plain `waitpid`,
/// so ``waitForExit()`` blocks: call it from a thread you own.
public final class ChildProcess: Sendable {
    /// Why the process could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        /// `posix_spawn`'s error text.
        public let description: String
    }

    /// The process id.
    public let pid: pid_t
    /// The file receiving standard output and standard error.
    public let outputPath: String
    /// Set once the process has been reaped: its pid may then name another process.
    private let reaped = Atomic<Bool>(false)

    /// Whether the process has exited and been reaped.
    public var hasExited: Bool { reaped.load(ordering: .acquiring) }

    /// Starts `arguments[0]` (an absolute path). `environment` replaces the inherited one
    /// when given; `directory` becomes the working directory when given.
    public init(_ arguments: [String], environment: [String: String]? = nil, directory: String? = nil, outputPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: descriptors opened without O_CLOEXEC (Foundation's
        // Process makes its exit-watch socket so) would otherwise live on in a child that
        // outlives the call (a postgres started by pg_ctl), and keep another process's
        // exit from being seen. A descriptor closed meanwhile makes its action a no-op.
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        // posix_spawn_file_actions_addchdir_np is not exported to Swift; env(1) changes directory.
        let arguments = directory.map { ["/usr/bin/env", "-C", $0] + arguments } ?? arguments

        // A child starts with no signal blocked and the usual dispositions: this process
        // blocks the signals it watches (a signalfd sees only blocked ones) and ignores
        // SIGPIPE, and both would be inherited. pg_autoctl, supervising its children by
        // signals, hung in `create monitor` when started from the test process.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = Self.withCStrings(arguments) { argv in
            Self.withCStrings(environmentLines) { envp in
                posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else {
            throw SpawnFailure(description: "\(arguments[0]): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        self.outputPath = outputPath
    }

    /// Sends `signal` (e.g. `SIGTERM`) to the process.
    public func send(_ signal: Int32) {
        guard !hasExited else { return }
        kill(pid, signal)
    }

    /// Blocks until the process exits; returns its exit code (128 + signal when killed).
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped.store(true, ordering: .releasing)
        return Self.exitCode(status)
    }

    /// The exit code if the process has exited, `nil` while it runs. Reaps the process.
    public func exitCodeIfExited() -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        reaped.store(true, ordering: .releasing)
        return Self.exitCode(status)
    }

    /// Everything the process wrote so far.
    public func output() -> String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// The descriptors open in this process now (`/proc/self/fd`).
    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    private static func exitCode(_ status: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
