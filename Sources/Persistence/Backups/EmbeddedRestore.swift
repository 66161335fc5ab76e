import Domain
import Foundation
import PostgresDriver

/// A restore of the embedded cluster into a new data directory: the database as it was at
/// a moment (pgBackRest's backup before it, then the archived WAL up to it), the media its
/// rows refer to, and the secrets to serve it with. The directory is then served as it is
/// (`MARKET09_DATA_DIR=DIR market09 serve`) or switched with the live one; the live data is
/// never written. Blocking: call it from a thread you own.
public struct EmbeddedRestore: Sendable {
    /// Why a restore could not be made.
    public enum Problem: Error, CustomStringConvertible {
        case targetNotEmpty(String)
        case notConfigured(String)
        case targetNotReached(String)
        case recoveryFailed(String)

        public var description: String {
            switch self {
            case .targetNotEmpty(let path): "the target \(path) is not empty: name a new directory (--target DIR)"
            case .notConfigured(let path):
                "no backups here: \(path)/pgbackrest.conf is missing (market09 serve sets them up, BACKUPS on by default); set MARKET09_DATA_DIR to the data directory"
            case .targetNotReached(let detail):
                "the archive ends before that moment (when nothing was written after it, --latest restores everything): \(detail)"
            case .recoveryFailed(let detail): "the restored database did not start: \(detail)"
            }
        }
    }

    public let source: EmbeddedBackups
    /// The live media store (its files are read, never changed).
    public let mediaDirectory: String
    public let target: URL

    public init(source: EmbeddedBackups, mediaDirectory: String, target: URL) {
        self.source = source
        self.mediaDirectory = mediaDirectory
        self.target = target.standardizedFileURL
    }

    /// What the restore made.
    public struct Outcome: Sendable {
        public let backup: BackupRecord
        public let mediaFiles: Int
        public let seconds: TimeInterval
    }

    /// Restores to `point` as of `now` from the backup labelled `backupLabel` (default: the
    /// latest before the point), saying each step through `say`.
    public func run(to point: RestorePoint, backupLabel: String? = nil, now: Date = Date(), say: (String) -> Void) throws -> Outcome {
        let started = Date()
        guard let configuration = source.tool.configuration, FileManager.default.fileExists(atPath: configuration) else {
            throw Problem.notConfigured(source.cluster.directory.path)
        }
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: target.path), !contents.isEmpty {
            throw Problem.targetNotEmpty(target.path)
        }
        let backup = try point.backup(from: source.tool.info().backups, label: backupLabel, now: now)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let restored = try EmbeddedPostgres(directory: target)
        try restored.handOver(target.path)

        say("restoring the database from backup \(backup.label) (\(backup.kind.rawValue), ended \(RestorePoint.text(backup.finished)))")
        try source.tool.run("restore", ["--pg1-path=\(restored.dataDirectory.path)", "--set=\(backup.label)", "--process-max=2"] + Self.recoveryOptions(point))

        for name in ["db-password", "jwt-secret"] {
            let live = source.cluster.directory.appendingPathComponent(name).path
            let saved = source.secretsDirectory + "/" + name
            guard let data = FileManager.default.contents(atPath: live) ?? FileManager.default.contents(atPath: saved) else { continue }
            let path = target.appendingPathComponent(name).path
            guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw EmbeddedPostgres.Failure.directoryNotAccessible(path)
            }
        }
        // The restored directory archives into the same repository, on a timeline of its own,
        // once it is the live one (served where the live one is: EmbeddedBackups.standing);
        // until then its archiving is off.
        try Data((source.settings.repository + "\n").utf8).write(to: target.appendingPathComponent(EmbeddedBackups.repositoryRecord))
        try Data((source.cluster.directory.path + "\n").utf8).write(to: target.appendingPathComponent(EmbeddedBackups.restoredForRecord))
        let backups = EmbeddedBackups(cluster: restored, settings: source.settings)
        for path in ["backup-spool", "backup-log", "backup-lock"].map({ target.appendingPathComponent($0).path }) {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try restored.handOver(path)
        }
        try backups.writeConfiguration()
        let settingsFile = restored.dataDirectory.appendingPathComponent("postgresql.auto.conf").path
        try Self.replace(configuration, with: backups.tool.configuration ?? configuration, in: settingsFile)
        // Later lines win: replay reads the archive (restore_command), the promotion writes nothing into it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: settingsFile))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("archive_mode = 'off'\n".utf8))
        try handle.close()

        say("replaying the archive up to \(Self.describe(point))")
        try restored.start()
        defer { try? restored.stop() }
        try waitForPromotion(restored)
        try forgetRecoveryTarget(restored)

        say("restoring the media store")
        let media = try MediaMirror(store: mediaDirectory, mirror: source.mediaMirror, retention: 0).restore(into: target.appendingPathComponent("media").path)
        return Outcome(backup: backup, mediaFiles: media, seconds: Date().timeIntervalSince(started))
    }

    /// Until recovery has ended and the cluster runs as a primary: a recovery that runs
    /// out of archive before its target stops the server (PostgreSQL 13+), which is told
    /// apart by its log.
    private func waitForPromotion(_ cluster: EmbeddedPostgres) throws {
        let log = target.appendingPathComponent("postgres.log").path
        for _ in 0..<36_000 {
            if !cluster.isRunning() {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").last(where: { $0.contains("recovery ended before configured recovery target was reached") }) {
                    throw Problem.targetNotReached(String(line))
                }
                throw Problem.recoveryFailed(text.split(separator: "\n").suffix(3).joined(separator: " | "))
            }
            if let connection = try? PostgresConnection(url: cluster.url(database: "postgres"), connectTimeoutSeconds: 2) {
                defer { connection.close() }
                if let inRecovery = try? connection.query("SELECT pg_is_in_recovery()").single().decode(0, as: Bool.self), !inRecovery { return }
            }
            Thread.sleep(forTimeInterval: 0.1)  // a thread of the caller's own (BlockingWork), never the pool
        }
        throw Problem.recoveryFailed("recovery did not end within an hour")
    }

    /// The settings pgBackRest's restore wrote, removed once the cluster is promoted: they
    /// stay in postgresql.auto.conf, and a standby made from this cluster later would stop
    /// at the same moment and promote itself.
    public static let recoverySettings = ["restore_command", "recovery_target_time", "recovery_target_xid",
                                          "recovery_target_inclusive", "recovery_target_action"]

    private func forgetRecoveryTarget(_ cluster: EmbeddedPostgres) throws {
        let connection = try PostgresConnection(url: cluster.url(database: "postgres"))
        defer { connection.close() }
        for setting in Self.recoverySettings { try connection.execute(script: "ALTER SYSTEM RESET \(unescaped: setting)") }
        try connection.execute(script: "SELECT pg_reload_conf()")
    }

    /// pgBackRest's restore options that make recovery stop at `point` and promote.
    public static func recoveryOptions(_ point: RestorePoint) -> [String] {
        switch point {
        case .time(let moment): ["--type=time", "--target=\(postgresTime(moment))", "--target-action=promote"]
        case .latest: ["--type=default"]
        case .beforeTransaction(let id): ["--type=xid", "--target=\(id)", "--target-exclusive", "--target-action=promote"]
        }
    }

    /// PostgreSQL's timestamptz text of `moment`, microseconds kept.
    static func postgresTime(_ moment: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSSSSS'+00'"
        return formatter.string(from: moment)
    }

    private static func describe(_ point: RestorePoint) -> String {
        switch point {
        case .time(let moment): RestorePoint.text(moment)
        case .latest: "its end"
        case .beforeTransaction(let id): "transaction \(id) (not included)"
        }
    }

    private static func replace(_ old: String, with new: String, in path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: false, encoding: .utf8)
    }
}
