import Foundation

/// A private PostgreSQL cluster in a directory of ours, run with the installed server
/// binaries: the default database of `market09 serve` when no `DATABASE_URL` is given, and
/// the throwaway clusters of tests that stop and restart the server.
///
/// The cluster listens only on a unix socket inside the directory. PostgreSQL refuses to
/// run as root, so when we are root every server command runs as the `postgres` account
/// (created by Debian's `postgresql` package) and the directory is handed to it.
///
/// Every method blocks; call them from a thread you own.
public struct EmbeddedPostgres: Sendable {
    /// Why the cluster could not be used.
    public enum Failure: Error, CustomStringConvertible {
        /// `initdb`/`pg_ctl` were not found.
        case binariesMissing
        /// Running as root but there is no `postgres` account to run the server as.
        case noServiceAccount
        /// The `postgres` account cannot reach the directory.
        case directoryNotAccessible(String)
        /// A server command failed.
        case commandFailed(String)

        /// One line for the operator.
        public var description: String {
            switch self {
            case .binariesMissing:
                return "PostgreSQL server binaries (initdb, pg_ctl) not found; install them with: apt-get install -y postgresql (or set PG_BIN_DIR)"
            case .noServiceAccount:
                return "running as root but there is no 'postgres' user to run the embedded PostgreSQL; install the postgresql package or set DATABASE_URL"
            case .directoryNotAccessible(let path):
                return "the 'postgres' user cannot write \(path); run from a directory it can reach (e.g. under /tmp or /srv) or set DATABASE_URL"
            case .commandFailed(let detail):
                return "embedded PostgreSQL failed: \(detail)"
            }
        }
    }

    /// The database the embedded default creates and serves.
    public static let databaseName = "market09"
    private static let superuser = "market09"

    /// The cluster's home, e.g. `<cwd>/.market09`.
    public let directory: URL
    private let binDirectory: URL
    private let extraSettings: [String]
    private let port = 5432

    /// Locates the server binaries and describes a cluster in `directory` (created on
    /// ``start()`` when missing). `settings` are extra `name=value` server settings.
    public init(directory: URL, environment: [String: String] = ProcessInfo.processInfo.environment, settings: [String] = []) throws {
        self.directory = directory.standardizedFileURL
        self.binDirectory = try Self.locateBinaries(environment: environment)
        self.extraSettings = settings
    }

    private var dataDirectory: URL { directory.appendingPathComponent("pgdata", isDirectory: true) }
    private var logFile: URL { directory.appendingPathComponent("postgres.log") }

    /// The directory holding the server's unix socket. Socket paths are limited to 107
    /// bytes, so a deep working directory falls back to a short path under `/tmp`.
    public var socketDirectory: URL {
        let preferred = directory.appendingPathComponent("socket", isDirectory: true)
        if preferred.path.utf8.count + 20 < 100 { return preferred }
        let tag = SHA256.hex(Data(directory.path.utf8)).prefix(12)
        return URL(fileURLWithPath: "/tmp/market09-\(tag)", isDirectory: true)
    }

    /// A libpq URL for `database` over the unix socket.
    public func url(database: String = EmbeddedPostgres.databaseName) -> String {
        let host = socketDirectory.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socketDirectory.path
        return "postgresql://\(Self.superuser)@\(host):\(port)/\(database)"
    }

    /// Initialises the cluster on first use and starts it unless it is already running.
    /// Returns `true` when this call started the server (and so should stop it).
    @discardableResult
    public func start() throws -> Bool {
        try prepareDirectories()
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            try server("initdb", "-D", dataDirectory.path, "-U", Self.superuser, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-instructions")
        }
        if isRunning() { return false }
        var options = "-c listen_addresses='' -p \(port) -c unix_socket_directories=\(shellQuoted(socketDirectory.path))"
        for setting in extraSettings { options += " -c \(shellQuoted(setting))" }
        try server("pg_ctl", "-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "60", "-o", options, "start")
        return true
    }

    /// Creates `name` unless it exists (connecting to the `postgres` maintenance database).
    public func createDatabase(_ name: String = EmbeddedPostgres.databaseName) throws {
        let connection = try PostgresConnection(url: url(database: "postgres"))
        defer { connection.close() }
        let exists = try connection.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).count > 0
        if !exists {
            try connection.execute(script: "CREATE DATABASE \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
        }
    }

    /// Stops the server: `fast` disconnects sessions cleanly; `immediate` kills the server
    /// as a crash would (tests use it to prove recovery).
    public func stop(immediately: Bool = false) throws {
        guard isRunning() else { return }
        try server("pg_ctl", "-D", dataDirectory.path, "-m", immediately ? "immediate" : "fast", "-w", "-t", "60", "stop")
    }

    /// Whether a server is running on this cluster's data directory.
    public func isRunning() -> Bool {
        (try? server("pg_ctl", "-D", dataDirectory.path, "status")) != nil
    }

    /// Deletes the whole cluster directory (tests only use throwaway ones).
    public func destroy() throws {
        try? stop()
        try? FileManager.default.removeItem(at: socketDirectory)
        try FileManager.default.removeItem(at: directory)
    }

    private func prepareDirectories() throws {
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        try manager.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        guard geteuid() == 0 else { return }
        guard let account = getpwnam("postgres") else { throw Failure.noServiceAccount }
        for path in [directory.path, socketDirectory.path] {
            guard chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw Failure.directoryNotAccessible(path)
            }
        }
        do {
            try ProcessRunner.run(["/usr/sbin/runuser", "-u", "postgres", "--", "/usr/bin/test", "-w", directory.path, "-a", "-x", directory.path])
        } catch {
            throw Failure.directoryNotAccessible(directory.path)
        }
    }

    @discardableResult
    private func server(_ tool: String, _ arguments: String...) throws -> String {
        let executable = binDirectory.appendingPathComponent(tool).path
        let command = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] : [executable]
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        do {
            return try ProcessRunner.run(command + arguments, environment: environment)
        } catch let failure as ProcessRunner.Failure {
            throw Failure.commandFailed(failure.description)
        }
    }

    private func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `PG_BIN_DIR` when set, else the newest `/usr/lib/postgresql/<version>/bin` holding
    /// `initdb` and `pg_ctl` (Debian's layout), else `initdb` on `PATH`.
    static func locateBinaries(environment: [String: String]) throws -> URL {
        let manager = FileManager.default
        func hasTools(_ directory: String) -> Bool {
            manager.isExecutableFile(atPath: directory + "/initdb") && manager.isExecutableFile(atPath: directory + "/pg_ctl")
        }
        if let configured = environment["PG_BIN_DIR"], !configured.isEmpty {
            guard hasTools(configured) else { throw Failure.binariesMissing }
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let versions = (try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.compactMap(Int.init).sorted(by: >) where hasTools("/usr/lib/postgresql/\(version)/bin") {
            return URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin", isDirectory: true)
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) where hasTools(directory) {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        throw Failure.binariesMissing
    }
}
