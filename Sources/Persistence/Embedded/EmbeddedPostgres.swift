import Cryptography
import Foundation
import PostgresDriver
import Workers

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

    /// The cluster's data directory (`<directory>/pgdata`).
    public var dataDirectory: URL { directory.appendingPathComponent("pgdata", isDirectory: true) }
    private var logFile: URL { directory.appendingPathComponent("postgres.log") }

    /// The superuser's password, kept in `db-password`.
    var passwordFile: URL { directory.appendingPathComponent("db-password") }
    private var socketRecord: URL { directory.appendingPathComponent("socket-directory") }
    private var preferredSocketDirectory: URL { directory.appendingPathComponent("socket", isDirectory: true) }
    private var socketFitsInDirectory: Bool { preferredSocketDirectory.path.utf8.count + 20 < 100 }

    /// The directory holding the server's unix socket. Socket paths are limited to 107
    /// bytes, so a deep working directory falls back to a directory under `/tmp` made by
    /// `mkdtemp` (unpredictable, 0700) and recorded in `socket-directory`: a predictable
    /// name could be created first by another account.
    public var socketDirectory: URL {
        if socketFitsInDirectory { return preferredSocketDirectory }
        let recorded = (try? String(contentsOf: socketRecord, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return URL(fileURLWithPath: recorded.isEmpty ? "/nonexistent" : recorded, isDirectory: true)
    }

    /// A libpq URL for `database` over the unix socket.
    public func url(database: String = EmbeddedPostgres.databaseName) -> String {
        let host = socketDirectory.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socketDirectory.path
        // The password is base64url: nothing in it needs escaping in a URL.
        let password = (try? String(contentsOf: passwordFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return "postgresql://\(Self.superuser)\(password.isEmpty ? "" : ":" + password)@\(host):\(port)/\(database)"
    }

    /// Initialises the cluster on first use and starts it unless it is already running.
    /// Returns `true` when this call started the server (and so should stop it).
    @discardableResult
    public func start() throws -> Bool {
        try prepareDirectories()
        let password = try ensurePassword()
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            try initialize(password: password)
        }
        if isRunning() { return false }
        // The socket is the only way in (no TCP), and only the cluster's owner may open it.
        var options = "-c listen_addresses='' -p \(port) -c unix_socket_directories=\(shellQuoted(socketDirectory.path))"
        options += " -c unix_socket_permissions=0700"
        for setting in extraSettings { options += " -c \(shellQuoted(setting))" }
        try server("pg_ctl", "-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "60", "-o", options, "start")
        try requirePasswords(password)
        return true
    }

    /// Creates `name` unless it exists (connecting to the `postgres` maintenance database).
    public func createDatabase(_ name: String = EmbeddedPostgres.databaseName) throws {
        let connection = try PostgresConnection(url: url(database: "postgres"))
        defer { connection.close() }
        let exists = try connection.query("SELECT 1 FROM pg_database WHERE datname = \(name)").count > 0
        if !exists {
            try connection.execute(script: "CREATE DATABASE \"\(unescaped: name.replacingOccurrences(of: "\"", with: "\"\""))\"")
        }
    }

    /// Makes a hot standby of this running cluster in `directory` (`pg_basebackup -R`,
    /// streaming from this cluster's socket) and starts it; it keeps replaying until stopped.
    /// Its URL differs from this one's by the socket directory only (same role, same password).
    public func startStreamingReplica(in directory: URL, settings: [String] = []) throws -> EmbeddedPostgres {
        let replica = try EmbeddedPostgres(directory: directory, settings: settings)
        try replica.prepareDirectories()
        let password = try ensurePassword()
        guard FileManager.default.createFile(atPath: replica.passwordFile.path, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Failure.directoryNotAccessible(replica.passwordFile.path)
        }
        try server("pg_basebackup", "-D", replica.dataDirectory.path, "-R", "-X", "stream", "-c", "fast", "-d", url(database: "postgres"))
        try replica.start()
        return replica
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

    /// The cluster's directory and socket directory exist, belong to the account that runs
    /// PostgreSQL, and are closed to everyone else (0700): other local accounts can
    /// neither reach the socket nor read the secrets kept here.
    private func prepareDirectories() throws {
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        let owner = try clusterOwner()
        if socketFitsInDirectory {
            try manager.createDirectory(at: preferredSocketDirectory, withIntermediateDirectories: true)
        } else if !Self.isPrivateDirectory(socketDirectory.path, owner: owner.uid) {
            var template = Array("/tmp/market09-XXXXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw Failure.directoryNotAccessible("/tmp") }
            let path = String(cString: made)
            try Data(path.utf8).write(to: socketRecord)
        }
        for path in [directory.path, socketDirectory.path] {
            guard chmod(path, 0o700) == 0, geteuid() != 0 || chown(path, owner.uid, owner.gid) == 0 else {
                throw Failure.directoryNotAccessible(path)
            }
        }
        guard geteuid() == 0 else { return }
        do {
            try ProcessRunner.run(["/usr/sbin/runuser", "-u", "postgres", "--", "/usr/bin/test", "-w", directory.path, "-a", "-x", directory.path])
        } catch {
            throw Failure.directoryNotAccessible(directory.path)
        }
    }

    /// The account the cluster's files belong to, by name, when it is not ours (`postgres`
    /// when we are root): the backup tool runs as it.
    var ownerAccount: String? { geteuid() == 0 ? "postgres" : nil }

    /// Gives `path` to the account PostgreSQL runs as, closed to everyone else (0700 for a
    /// directory, 0600 for a file).
    func handOver(_ path: String) throws {
        let owner = try clusterOwner()
        var status = stat()
        let isDirectory = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
        guard chmod(path, isDirectory ? 0o700 : 0o600) == 0, geteuid() != 0 || chown(path, owner.uid, owner.gid) == 0 else {
            throw Failure.directoryNotAccessible(path)
        }
    }

    /// The account PostgreSQL runs as: `postgres` when we are root, else ourselves.
    private func clusterOwner() throws -> (uid: uid_t, gid: gid_t) {
        guard geteuid() == 0 else { return (geteuid(), getegid()) }
        guard let account = getpwnam("postgres") else { throw Failure.noServiceAccount }
        return (account.pointee.pw_uid, account.pointee.pw_gid)
    }

    /// Whether `path` is a real directory (not a link) of `owner` that nobody else may enter.
    private static func isPrivateDirectory(_ path: String, owner: uid_t) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR && status.st_uid == owner && status.st_mode & 0o077 == 0
    }

    /// The superuser's password, generated once and kept in `db-password`, readable by
    /// this process's account only.
    private func ensurePassword() throws -> String {
        if let stored = try? String(contentsOf: passwordFile, encoding: .utf8), !stored.isEmpty {
            return stored.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let password = Base64URL.encode(CryptoPrimitives.randomBytes(32))
        guard FileManager.default.createFile(atPath: passwordFile.path, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Failure.directoryNotAccessible(passwordFile.path)
        }
        return password
    }

    /// `initdb` with SCRAM password authentication for every connection.
    private func initialize(password: String) throws {
        // initdb reads the password from a file; when it runs as `postgres` it cannot read
        // ours, so it gets a copy of its own for the moment it runs.
        let passwordCopy = directory.appendingPathComponent(".initdb-password")
        guard FileManager.default.createFile(atPath: passwordCopy.path, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Failure.directoryNotAccessible(passwordCopy.path)
        }
        defer { try? FileManager.default.removeItem(at: passwordCopy) }
        let owner = try clusterOwner()
        guard chown(passwordCopy.path, owner.uid, owner.gid) == 0 else { throw Failure.directoryNotAccessible(passwordCopy.path) }
        // 1 MB WAL segments (16 MB by default): continuous archiving closes a segment every
        // few seconds of activity (BACKUP_ARCHIVE_TIMEOUT_SECONDS), and each closed segment is
        // written and archived whole.
        try server("initdb", "-D", dataDirectory.path, "-U", Self.superuser, "--auth=scram-sha-256", "--pwfile=\(passwordCopy.path)",
                   "--encoding=UTF8", "--locale=C.UTF-8", "--no-instructions", "--wal-segsize=1")
    }

    /// Clusters made before passwords (with `trust`) get the password set and their
    /// `pg_hba.conf` replaced on their next start; the socket was already closed to other
    /// accounts by then.
    private func requirePasswords(_ password: String) throws {
        let hba = dataDirectory.appendingPathComponent("pg_hba.conf")
        // Replication too (pg_basebackup, a streaming standby), for the same superuser on the
        // same private socket: a backup or a replica of the embedded cluster needs no change.
        let wanted = "# market09 embedded cluster: unix socket only, SCRAM passwords for every role.\nlocal all all scram-sha-256\nlocal replication all scram-sha-256\n"
        guard (try? String(contentsOf: hba, encoding: .utf8)) != wanted else { return }
        let connection = try PostgresConnection(url: url(database: "postgres"))
        defer { connection.close() }
        try connection.execute(script: "ALTER ROLE \(unescaped: Self.superuser) PASSWORD '\(unescaped: password)'")
        let file = try FileHandle(forWritingTo: hba)
        try file.truncate(atOffset: 0)
        try file.write(contentsOf: Data(wanted.utf8))
        try file.close()
        try server("pg_ctl", "-D", dataDirectory.path, "reload")
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
