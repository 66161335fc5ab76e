import Domain
import Foundation
import Persistence
import Workers

/// `market09 restore`: the embedded cluster, its media and its secrets, as they were at a
/// moment, into a new data directory (the live one is never written unless `--in-place`).
enum RestoreCommand {
    static let help = """
        Usage: market09 restore --to 'YYYY-MM-DD HH:MM:SS+09' | --latest | --before-transaction XID
                                [--target DIR | --in-place] [--backup LABEL]

        Restores the embedded database (MARKET09_DATA_DIR, ./.market09) from its backups and
        archived WAL, as it was at a moment:
          --to TIME                 every transaction committed before TIME (a zone is
                                    required: +09, +09:00 or Z; seconds may have fractions)
          --latest                  everything archived (after losing the data directory)
          --before-transaction XID  just before transaction XID committed (a bad import's
                                    or migration's id, from the log or pg_stat_activity)
        together with the media store (every image the restored rows refer to) and the
        secrets to serve it with.

          --target DIR   where (default: .market09-restored-<time> beside the data directory);
                         it must be new or empty. Serve it with
                         MARKET09_DATA_DIR=DIR market09 serve, or switch it with the live one
                         (docs/operations.md, "Restore to a moment").
          --in-place     restore over the live data directory: the server must be stopped;
                         the live pgdata is kept beside as pgdata.before-restore-<time>.
          --backup LABEL start from this backup (market09 backup list) rather than the
                         latest that ended before the moment.

        Progress goes to stderr. Exit code 1 when no backup covers the moment, the archive
        ends before it, the target is not empty, or (in place) the server runs.
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: ["latest", "in-place", "help"], options: ["to", "before-transaction", "target", "backup"])
        if parsed.flag("help") { CommandLineInterface.printLine(help); return 0 }
        _ = try parsed.positionals()
        let point: RestorePoint
        switch (parsed.option("to"), parsed.flag("latest"), parsed.option("before-transaction")) {
        case (let text?, false, nil):
            guard let moment = RestorePoint.moment(text) else {
                throw UsageError("--to needs a moment with its zone, e.g. '2026-12-05 10:00:00+09' (got '\(text)')")
            }
            point = .time(moment)
        case (nil, true, nil): point = .latest
        case (nil, false, let text?):
            guard let id = UInt64(text), id > 2 else { throw UsageError("--before-transaction needs a transaction id (a number above 2)") }
            point = .beforeTransaction(id)
        default:
            throw UsageError("restore needs exactly one of --to TIME, --latest or --before-transaction XID")
        }
        guard !(parsed.flag("in-place") && parsed.option("target") != nil) else { throw UsageError("--target and --in-place exclude each other") }
        let repository = try BackupRepository.resolve(environment)
        let configuration = try Configuration.fromEnvironment(environment)
        guard let backups = repository.embedded else {
            guard let target = parsed.option("target") else {
                throw UsageError("on a deployment's backup host, restore needs --target DIR (a new directory PostgreSQL will run on)")
            }
            return try await deployment(repository.tool, point: point, backupLabel: parsed.option("backup"), target: target, media: configuration.mediaDirectory)
        }
        let live = backups.cluster.directory
        let stamp = Self.stamp(Date())
        let say: @Sendable (String) -> Void = { line in CommandLineInterface.printError("restore: \(line)") }
        if parsed.flag("in-place") {
            return try await inPlace(backups, point: point, backupLabel: parsed.option("backup"), media: configuration.media.directory, stamp: stamp, say: say)
        }
        let target = parsed.option("target").map(DatabaseTarget.absolute) ?? live.deletingLastPathComponent().appendingPathComponent(".market09-restored-\(stamp)")
        let restore = EmbeddedRestore(source: backups, mediaDirectory: configuration.media.directory, target: target)
        let label = parsed.option("backup")
        let outcome = try await BlockingWork.run(name: "restore") { try restore.run(to: point, backupLabel: label, say: say) }
        CommandLineInterface.printLine("""
            restored in \(String(format: "%.1f", outcome.seconds)) s into \(target.path): the database, \(outcome.mediaFiles) media files, the secrets
            serve it:   MARKET09_DATA_DIR=\(target.path) market09 serve
            or switch:  stop market09 serve; mv \(live.path) \(live.path).replaced-\(stamp); mv \(target.path) \(live.path); market09 serve
            """)
        return 0
    }

    /// Over the live directory: its pgdata moved aside (kept), the restore made in a
    /// directory beside, and its pgdata and media moved in.
    private static func inPlace(_ backups: EmbeddedBackups, point: RestorePoint, backupLabel: String?, media: String, stamp: String,
                                say: @escaping @Sendable (String) -> Void) async throws -> Int32 {
        let live = backups.cluster.directory
        guard !backups.cluster.isRunning() else {
            throw CommandFailure("the server is running on \(live.path): stop market09 serve (and any command using it) first, or restore into --target DIR")
        }
        let work = live.appendingPathComponent("restore-\(stamp)")
        let restore = EmbeddedRestore(source: backups, mediaDirectory: media, target: work)
        let outcome = try await BlockingWork.run(name: "restore") { () throws -> EmbeddedRestore.Outcome in
            let outcome = try restore.run(to: point, backupLabel: backupLabel, say: say)
            let manager = FileManager.default
            let data = live.appendingPathComponent("pgdata")
            try manager.moveItem(at: data, to: live.appendingPathComponent("pgdata.before-restore-\(stamp)"))
            try manager.moveItem(at: work.appendingPathComponent("pgdata"), to: data)
            for name in (try? manager.contentsOfDirectory(atPath: work.appendingPathComponent("media").path)) ?? [] {
                let target = media + "/" + name
                if !manager.fileExists(atPath: target) { try manager.moveItem(atPath: work.appendingPathComponent("media/" + name).path, toPath: target) }
            }
            try manager.removeItem(at: work)
            return outcome
        }
        CommandLineInterface.printLine("""
            restored in place in \(String(format: "%.1f", outcome.seconds)) s (from backup \(outcome.backup.label)); the data before is in \(live.path)/pgdata.before-restore-\(stamp)
            start the server again: market09 serve
            """)
        return 0
    }

    /// On a deployment's backup host (docker-compose.yml, scripts/cluster): the database files
    /// into `target`, to be started by a PostgreSQL that reaches the same repository (its
    /// restore_command: `pgbackrest archive-get`, configured by its own PGBACKREST_*
    /// variables); it replays the archive to the point and promotes. The media mirror's files
    /// go back into `media` (the store's directory), where they are missing.
    private static func deployment(_ tool: PgBackRest, point: RestorePoint, backupLabel: String?, target: String, media: String?) async throws -> Int32 {
        let say: @Sendable (String) -> Void = { line in CommandLineInterface.printError("restore: \(line)") }
        let started = Date()
        let (backup, files) = try await BlockingWork.run(name: "restore") { () throws -> (BackupRecord, Int) in
            if let contents = try? FileManager.default.contentsOfDirectory(atPath: target), !contents.isEmpty {
                throw EmbeddedRestore.Problem.targetNotEmpty(target)
            }
            let backup = try point.backup(from: tool.info().backups, label: backupLabel, now: Date())
            say("restoring the database files from backup \(backup.label) (\(backup.kind.rawValue), ended \(RestorePoint.text(backup.finished)))")
            try tool.run("restore", ["--pg1-path=\(target)", "--set=\(backup.label)", "--process-max=2",
                                     "--recovery-option=restore_command=\(tool.archiveGetCommand)"]
                         + EmbeddedRestore.recoveryOptions(point))
            guard let media, let repository = ProcessInfo.processInfo.environment["BACKUP_MEDIA_MIRROR"]
                    ?? ProcessInfo.processInfo.environment["PGBACKREST_REPO1_PATH"].map({ $0 + "/media" }) else { return (backup, 0) }
            say("restoring the media store's missing files into \(media)")
            return (backup, try MediaMirror(store: media, mirror: repository, retention: 0).restoreMissing())
        }
        CommandLineInterface.printLine("""
            restored the database files into \(target) (backup \(backup.label)) and \(files) media files in \(String(format: "%.1f", Date().timeIntervalSince(started))) s
            start PostgreSQL on it: it replays the archive to the moment and promotes (docs/operations.md, "Backups")
            """)
        return 0
    }

    /// `20261205T101500Z`: a directory name's time.
    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
