import Domain
import Foundation
import Persistence
import Workers

/// `market09 backup list | create | verify`: the embedded cluster's repository (the data
/// directory's pgbackrest.conf), or a deployment's when PGBACKREST_CONFIG names one
/// (docker-compose.yml's and scripts/cluster's backup hosts run these same commands).
enum BackupCommand {
    static let help = """
        Usage: market09 backup list
               market09 backup create [--type full|diff|incr]
               market09 backup verify
               market09 backup run      (a deployment's backup host: market09 backup run --help)

        list    the backups, their sizes, and the span a restore can reach (from the first
                backup's end to the last archived WAL)
        create  a backup now (default: full when there is none, else differential); the
                server also takes them on schedule (BACKUP_FULL_EVERY_HOURS,
                BACKUP_DIFFERENTIAL_EVERY_HOURS)
        verify  checks every backup's and archived WAL file's checksum, and that archiving
                works; exit code 1 on any problem

        The repository: the embedded cluster's in MARKET09_DATA_DIR (./.market09; BACKUP_DIR
        when set), or PGBACKREST_CONFIG (with PGBACKREST_STANZA, default market09) on a
        deployment's backup host. Restores: market09 restore --help.

        \(BackupHostCommand.help)
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        let (task, rest): (String, [String])
        switch CommandLineInterface.task(arguments, help: help) {
        case .failure(let exit): return exit.code
        case .success(let parsed): (task, rest) = (parsed.name, parsed.arguments)
        }
        switch task {
        case "run":
            _ = try ParsedArguments(rest).positionals()
            return await BackupHostCommand.run(environment: environment)
        case "list":
            _ = try ParsedArguments(rest).positionals()
            let repository = try BackupRepository.resolve(environment)
            let info = try await BlockingWork.run(name: "backup") { try repository.tool.info() }
            list(info, repository: repository)
            return 0
        case "create":
            let parsed = try ParsedArguments(rest, options: ["type"])
            _ = try parsed.positionals()
            let requested = try parsed.option("type").map { text in
                guard let kind = BackupRecord.Kind(rawValue: text) else { throw UsageError("--type is full, diff or incr") }
                return kind
            }
            let repository = try BackupRepository.resolve(environment)
            return try await repository.withCluster { tool in
                let backups = try tool.info().backups
                let kind = requested ?? (backups.contains { $0.kind == .full } ? .differential : .full)
                CommandLineInterface.printError("backup: \(kind == .full ? "full" : kind == .differential ? "differential" : "incremental") backup started")
                let started = Date()
                try tool.backup(kind)
                let made = try tool.info().backups.last
                CommandLineInterface.printLine("backup \(made?.label ?? "?") (\(kind.rawValue)) done in \(String(format: "%.1f", Date().timeIntervalSince(started))) s, "
                                               + "\(Self.size(made?.repositoryBytes ?? 0)) stored")
                return 0
            }
        case "verify":
            _ = try ParsedArguments(rest).positionals()
            let repository = try BackupRepository.resolve(environment)
            return try await repository.withCluster { tool in
                CommandLineInterface.printError("backup: checking every backup's and archived WAL file's checksum")
                try tool.run("verify")
                CommandLineInterface.printError("backup: checking that archiving works (a WAL segment to the repository and back)")
                try tool.run("check")
                let info = try tool.info()
                CommandLineInterface.printLine("verified: \(info.backups.count) backups and the archive \(info.archive.map { "\($0.first) … \($0.last)" } ?? "(empty)"); no problem found")
                return 0
            }
        default:
            throw UsageError("backup needs list, create, verify or run, not '\(task)'")
        }
    }

    private static func list(_ info: BackupRepositoryInfo, repository: BackupRepository) {
        CommandLineInterface.printLine("repository: \(repository.location) (\(size(info.repositoryBytes)) of backups)")
        guard let first = info.backups.map(\.finished).min() else {
            CommandLineInterface.printLine("no backup yet: nothing can be restored (the server takes the first at start; market09 backup create takes one now)")
            return
        }
        CommandLineInterface.printLine("restorable from \(RestorePoint.text(first)) to the last archived WAL \(info.archive?.last ?? "?")")
        let rows = [("label", "type", "started", "ended", "database", "stored")] + info.backups.map {
            ($0.label, $0.kind.rawValue, RestorePoint.text($0.started), RestorePoint.text($0.finished), size($0.databaseBytes), size($0.repositoryBytes))
        }
        let widths = [rows.map(\.0.count).max()!, rows.map(\.1.count).max()!, rows.map(\.2.count).max()!, rows.map(\.3.count).max()!, rows.map(\.4.count).max()!]
        for row in rows {
            let cells = [row.0, row.1, row.2, row.3, row.4]
            CommandLineInterface.printLine(zip(cells, widths).map { $0.padding(toLength: $1 + 2, withPad: " ", startingAt: 0) }.joined() + row.5)
        }
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 30 ? String(format: "%.1f GB", Double(bytes) / Double(1 << 30))
            : bytes >= 1 << 20 ? String(format: "%.1f MB", Double(bytes) / Double(1 << 20)) : String(format: "%.0f KB", Double(bytes) / 1024)
    }
}

/// The repository a backup or restore command works on.
struct BackupRepository {
    let tool: PgBackRest
    /// The embedded cluster's backups, when the repository is theirs.
    let embedded: EmbeddedBackups?
    /// Where it is, to print.
    let location: String

    /// A deployment's (PGBACKREST_CONFIG or PGBACKREST_STANZA: its backup host), else the
    /// embedded cluster's.
    static func resolve(_ environment: [String: String]) throws -> BackupRepository {
        let config = environment["PGBACKREST_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        if config != nil || environment["PGBACKREST_STANZA"] != nil {
            let tool = PgBackRest(configuration: config, stanza: environment["PGBACKREST_STANZA"] ?? EmbeddedBackups.stanza,
                                  account: config.flatMap(Self.owner(ofConfiguration:)))
            // Where the repository is, as the tool reads it: its variable, else the file's line.
            let fileLine = config.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?.split(separator: "\n")
                .first { $0.hasPrefix("repo1-path=") }.map { String($0.dropFirst("repo1-path=".count)) }
            return BackupRepository(tool: tool, embedded: nil,
                                    location: environment["PGBACKREST_REPO1_PATH"] ?? fileLine ?? config ?? "(pgBackRest's settings)")
        }
        let directory = DatabaseTarget.absolute(environment["MARKET09_DATA_DIR"] ?? ".market09")
        let configuration = try Configuration.fromEnvironment(environment)
        // After losing the disk, BACKUP_DIR (elsewhere) is all there is.
        let lost = configuration.backupDirectory.map { FileManager.default.fileExists(atPath: $0 + "/backup/" + EmbeddedBackups.stanza) } ?? false
            && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("pgdata").path)
        guard lost || FileManager.default.fileExists(atPath: directory.appendingPathComponent("pgbackrest.conf").path) else {
            throw CommandFailure("no backups in \(directory.path): market09 serve sets them up there (BACKUPS on by default); run this where it runs, "
                                 + "or set MARKET09_DATA_DIR, or BACKUP_DIR to the repository (after losing the data directory), "
                                 + "or PGBACKREST_CONFIG on a deployment's backup host")
        }
        let cluster = try EmbeddedPostgres(directory: directory, environment: environment)
        let settings = EmbeddedBackups.Settings(repository: EmbeddedBackups.repository(for: directory, explicit: configuration.backupDirectory),
                                                retainFull: configuration.backupRetainFull, retainDays: configuration.backupRetainDays,
                                                archiveTimeoutSeconds: configuration.backupArchiveTimeoutSeconds)
        let backups = EmbeddedBackups(cluster: cluster, settings: settings)
        if lost {
            CommandLineInterface.printError("backup: \(directory.path) holds no database: working from the repository \(settings.repository) alone")
            try backups.reattach()
        }
        return BackupRepository(tool: backups.tool, embedded: backups, location: settings.repository)
    }

    /// Run as root, the tool runs as the account that owns its configuration file (the
    /// cluster's, scripts/cluster's `postgres`): the files it restores are that account's.
    static func owner(ofConfiguration path: String) -> String? {
        guard geteuid() == 0, let owner = try? FileManager.default.attributesOfItem(atPath: path)[.ownerAccountName] as? String,
              owner != "root" else { return nil }
        return owner
    }

    /// Runs `body` with the tool while the embedded cluster runs (started for it, and
    /// stopped after, when the server does not run it); a deployment's cluster runs anyway.
    /// A restored copy served elsewhere than the live directory writes nothing into the
    /// live one's repository: refused.
    func withCluster(_ body: @escaping @Sendable (PgBackRest) throws -> Int32) async throws -> Int32 {
        if let origin = embedded?.copyOf {
            throw CommandFailure("this directory is a restored copy of \(origin): its backups would mix with the live one's in \(location); "
                                 + "move it to \(origin) to make it the live one")
        }
        return try await BlockingWork.run(name: "backup") { [tool, embedded] in
            let started = try embedded?.cluster.start() ?? false
            defer { if started { try? embedded?.cluster.stop() } }
            return try body(tool)
        }
    }
}
