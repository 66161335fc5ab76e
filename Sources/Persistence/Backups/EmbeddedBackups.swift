import Domain
import Foundation
import PostgresDriver

/// Backups of the embedded cluster with pgBackRest: WAL archived continuously into a
/// repository on this machine (`<data dir>/backups` unless `BACKUP_DIR`), full and
/// differential backups taken by the server's job, the media store mirrored beside them,
/// and the secrets a restored directory needs. A repository on the cluster's own disk
/// protects against mistakes (a delete, a bad import, a migration), not against losing the
/// disk: put it elsewhere with `BACKUP_DIR`.
public struct EmbeddedBackups: Sendable {
    /// How the repository is kept.
    public struct Settings: Sendable, Equatable {
        /// The repository's directory.
        public var repository: String
        /// Full backups kept (with what they need); older ones expire with their WAL.
        public var retainFull: Int
        /// When set, full backups are kept this many days instead of by count.
        public var retainDays: Int?
        /// A WAL segment is closed and archived at most this long after its first write:
        /// the most acknowledged data a lost disk can cost.
        public var archiveTimeoutSeconds: Int

        public init(repository: String, retainFull: Int = 2, retainDays: Int? = nil, archiveTimeoutSeconds: Int = 3) {
            self.repository = repository
            self.retainFull = retainFull
            self.retainDays = retainDays
            self.archiveTimeoutSeconds = archiveTimeoutSeconds
        }
    }

    /// The stanza: the cluster's name in the repository.
    public static let stanza = "market09"
    /// Where a restored data directory records the repository it came from (so it goes on
    /// archiving there, on its new timeline, once it is the live one).
    public static let repositoryRecord = "backup-repository"
    /// Where a restored data directory records the live directory it was restored for: until
    /// it is served there, it writes nothing into the repository (its archiving is off).
    public static let restoredForRecord = "restored-for"

    /// Whether a data directory is the live one or a restored copy of another.
    public enum Standing: Sendable, Equatable {
        case live
        /// A restored copy, served where it was restored for: the live one from now on.
        case adopted
        /// A restored copy of the directory at this path, served elsewhere (to look at it).
        case copy(of: String)
    }

    /// The cluster's standing; a copy served at the path it was restored for is adopted (its
    /// record removed). A copy that archived or backed up into the repository would put a
    /// timeline there that a later `--latest` follows, and backups that retention counts
    /// against the live one's (bench/restore failed so: "requested timeline 2 is not a child
    /// of this server's history", from a copy once served to look at).
    public func standing() throws -> Standing {
        if let origin = copyOf { return .copy(of: origin) }
        let record = cluster.directory.appendingPathComponent(Self.restoredForRecord)
        guard FileManager.default.fileExists(atPath: record.path) else { return .live }
        try FileManager.default.removeItem(at: record)
        return .adopted
    }

    /// The live directory this one is a restored copy of, while it is served elsewhere.
    public var copyOf: String? {
        let record = cluster.directory.appendingPathComponent(Self.restoredForRecord)
        guard let origin = (try? String(contentsOf: record, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines), !origin.isEmpty,
              URL(fileURLWithPath: origin).standardizedFileURL.path != cluster.directory.path else { return nil }
        return origin
    }

    public let cluster: EmbeddedPostgres
    public let settings: Settings
    /// The tool, configured for this cluster and repository.
    public let tool: PgBackRest

    /// The repository for the data directory `directory`: `explicit` (BACKUP_DIR), else the
    /// one a restore recorded there, else `<directory>/backups`.
    public static func repository(for directory: URL, explicit: String?) -> String {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit).standardizedFileURL.path }
        let recorded = (try? String(contentsOf: directory.appendingPathComponent(repositoryRecord), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if let recorded, !recorded.isEmpty { return recorded }
        return directory.appendingPathComponent("backups").path
    }

    public init(cluster: EmbeddedPostgres, settings: Settings) {
        self.cluster = cluster
        self.settings = settings
        let password = (try? String(contentsOf: cluster.passwordFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        tool = PgBackRest(configuration: cluster.directory.appendingPathComponent("pgbackrest.conf").path, stanza: Self.stanza,
                          account: cluster.ownerAccount, environment: ["PGPASSWORD": password])
    }

    /// The tool's configuration file, in the data directory.
    var configurationPath: String { cluster.directory.appendingPathComponent("pgbackrest.conf").path }

    /// The media store's copy in the repository.
    public var mediaMirror: String { settings.repository + "/media" }
    /// The secrets a restore of this cluster needs, kept in the repository.
    public var secretsDirectory: String { settings.repository + "/secrets" }

    /// Makes archiving run: the tool's configuration, PostgreSQL's archive settings (kept in
    /// the cluster, so every command that starts it archives too; the first time this
    /// restarts it), the stanza, and a check that a WAL segment reaches the repository.
    /// The cluster must be running.
    public func enable() throws {
        guard PgBackRest.isInstalled else { throw Problem.toolMissing }
        try prepareDirectories()
        try writeConfiguration()
        try saveSecrets()
        let restart = try applySettings([
            ("archive_mode", "on"), ("archive_command", tool.archiveCommand), ("archive_timeout", "\(settings.archiveTimeoutSeconds)s"),
        ])
        if restart {
            try cluster.stop()
            try cluster.start()
        }
        // Only once: stanza-create takes the backup lock, which a backup of the last run may
        // still hold for a moment after its server stopped.
        if try !tool.stanzaExists() { try tool.run("stanza-create") }
        try tool.run("check")
    }

    /// The data directory is gone (a lost disk) and the repository is not: the tool's
    /// configuration is written again into a new data directory, so that `info` and
    /// `restore` work from the repository alone.
    public func reattach() throws {
        try FileManager.default.createDirectory(at: cluster.directory, withIntermediateDirectories: true)
        try cluster.handOver(cluster.directory.path)
        try prepareDirectories()
        try writeConfiguration()
    }

    /// Stops archiving (`BACKUPS=false`): the repository is left as it is.
    public func disable() throws {
        if try applySettings([("archive_mode", "off")]) {
            try cluster.stop()
            try cluster.start()
        }
    }

    /// Why backups could not be set up.
    public enum Problem: Error, CustomStringConvertible {
        case toolMissing
        public var description: String {
            "backups of the embedded database need pgBackRest: apt-get install -y pgbackrest (scripts/serve installs it), or set BACKUPS=false"
        }
    }

    /// Copies the files a restored directory needs besides the database (its password, the
    /// token secret) into the repository, readable by the cluster's owner only.
    public func saveSecrets() throws {
        try FileManager.default.createDirectory(atPath: secretsDirectory, withIntermediateDirectories: true)
        try cluster.handOver(secretsDirectory)
        for name in ["db-password", "jwt-secret"] {
            let source = cluster.directory.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: source) else { continue }
            let target = secretsDirectory + "/" + name
            if (try? Data(contentsOf: URL(fileURLWithPath: target))) == data { continue }
            guard FileManager.default.createFile(atPath: target + ".tmp", contents: data, attributes: [.posixPermissions: 0o600]),
                  rename(target + ".tmp", target) == 0 else { throw EmbeddedPostgres.Failure.directoryNotAccessible(target) }
            try cluster.handOver(target)
        }
    }

    private func prepareDirectories() throws {
        for path in [settings.repository, cluster.directory.appendingPathComponent("backup-spool").path,
                     cluster.directory.appendingPathComponent("backup-log").path, cluster.directory.appendingPathComponent("backup-lock").path] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try cluster.handOver(path)
        }
    }

    /// pgbackrest.conf in the data directory: the repository, its retention, lz4 and
    /// asynchronous archiving (a segment pushed while PostgreSQL goes on), and the cluster
    /// over its private socket. Backups take one process beside the server: under full
    /// load, back-to-back full backups raised the bench's p99s up to 2.6× with one, 3.3×
    /// with two (bench/backup-cost, both at SCHED_IDLE); restores take two.
    func writeConfiguration() throws {
        let directory = cluster.directory.path
        let retention = settings.retainDays.map { "repo1-retention-full-type=time\nrepo1-retention-full=\($0)" }
            ?? "repo1-retention-full-type=count\nrepo1-retention-full=\(settings.retainFull)"
        let text = """
            # Written by market09 at every start from BACKUP_DIR and BACKUP_RETAIN_*: edits are overwritten.
            [global]
            repo1-path=\(settings.repository)
            \(retention)
            compress-type=lz4
            archive-async=y
            archive-push-queue-max=1GiB
            spool-path=\(directory)/backup-spool
            log-path=\(directory)/backup-log
            lock-path=\(directory)/backup-lock
            log-level-console=warn
            log-level-file=info
            start-fast=y
            process-max=1

            [\(Self.stanza)]
            pg1-path=\(cluster.dataDirectory.path)
            pg1-socket-path=\(cluster.socketDirectory.path)
            pg1-port=5432
            pg1-user=market09

            """
        let path = configurationPath
        if (try? String(contentsOfFile: path, encoding: .utf8)) == text { return }
        guard FileManager.default.createFile(atPath: path + ".tmp", contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
              rename(path + ".tmp", path) == 0 else { throw EmbeddedPostgres.Failure.directoryNotAccessible(path) }
        try cluster.handOver(path)
    }

    /// Sets `values` with ALTER SYSTEM where they differ; whether one needs a restart.
    private func applySettings(_ values: [(String, String)]) throws -> Bool {
        let connection = try PostgresConnection(url: cluster.url(database: "postgres"))
        defer { connection.close() }
        var restart = false
        for (name, value) in values {
            let current: String = try connection.query("SELECT setting FROM pg_settings WHERE name = \(name)").single().decode(0)
            let pending = try connection.query("SELECT pending_restart FROM pg_settings WHERE name = \(name)").single().decode(0, as: Bool.self)
            let wanted = name == "archive_timeout" ? String(value.dropLast()) : value
            guard current != wanted || pending else { continue }
            try connection.execute(script: "ALTER SYSTEM SET \(unescaped: name) = '\(unescaped: value.replacingOccurrences(of: "'", with: "''"))'")
            if name == "archive_mode" { restart = true }
        }
        try connection.execute(script: "SELECT pg_reload_conf()")
        return restart
    }
}
