import Domain
import Foundation
import Workers

/// pgBackRest (Debian's `pgbackrest`), the tool every backup and restore goes through: a
/// configuration file and a stanza name, run as the account that owns the cluster's files.
/// Every method blocks while the tool runs: call it from a thread you own (BlockingWork).
public struct PgBackRest: Sendable {
    /// The tool's configuration file; `nil`: its default (`/etc/pgbackrest.conf`) and
    /// `PGBACKREST_*` variables, as docker-compose.yml's containers configure it.
    public let configuration: String?
    /// The stanza: the cluster's name in the repository.
    public let stanza: String
    /// Run as this account (`postgres` when market09 runs as root), or as ourselves.
    let account: String?
    /// Extra environment for the tool (the database password it connects with).
    let environment: [String: String]

    public init(configuration: String?, stanza: String, account: String? = nil, environment: [String: String] = [:]) {
        self.configuration = configuration
        self.stanza = stanza
        self.account = account
        self.environment = environment
    }

    /// The `pgbackrest` executable.
    static let executable = "/usr/bin/pgbackrest"

    /// Whether the tool is installed.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// The command line `archive_command` runs (PostgreSQL runs it as the cluster's owner).
    public var archiveCommand: String {
        "\(Self.executable)\(configuration.map { " --config=" + Self.quoted($0) } ?? "") --stanza=\(stanza) archive-push %p"
    }

    /// The command line a restored cluster's `restore_command` runs.
    public var archiveGetCommand: String {
        "\(Self.executable)\(configuration.map { " --config=" + Self.quoted($0) } ?? "") --stanza=\(stanza) archive-get %f \"%p\""
    }

    /// Runs `command` with `options`; its output, or ``Failure`` naming the tool's last lines.
    /// `started` receives the running process (to stop it: SIGTERM ends a backup cleanly).
    /// `operands` follow the command (archive-push's file); `background`: at the lowest CPU
    /// and I/O priority (a backup beside the server).
    @discardableResult
    public func run(_ command: String, _ options: [String] = [], operands: [String] = [], background: Bool = false,
                    started: (ChildProcess) -> Void = { _ in }) throws -> String {
        var arguments = [Self.executable] + (configuration.map { ["--config=\($0)"] } ?? []) + ["--stanza=\(stanza)"] + options + [command] + operands
        if background { arguments = Self.backgroundPriority + arguments }
        // runuser passes SIGTERM on to the tool.
        if let account, geteuid() == 0 { arguments = ["/usr/sbin/runuser", "-u", account, "--"] + arguments }
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("market09-pgbackrest-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        let process: ChildProcess
        do {
            process = try ChildProcess(arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, outputPath: outputPath)
        } catch {
            throw Failure(command: command, output: String(describing: error))
        }
        started(process)
        let code = process.waitForExit()
        let output = process.output()
        guard code == 0 else { throw Failure(command: command, output: output) }
        return output
    }

    /// A pgBackRest command that failed: its name and its own words.
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let output: String
        public var description: String {
            if output.contains("ERROR: [050]") {
                return "pgbackrest \(command): another backup is running (the server's schedule, or another command): try again when it ends"
            }
            let lines = output.split(separator: "\n").filter { $0.contains("ERROR") || $0.contains("WARN") }
            return "pgbackrest \(command) failed: " + (lines.isEmpty ? output.split(separator: "\n").suffix(3) : lines.suffix(3)).joined(separator: " | ")
        }
    }

    /// What the repository holds: its backups, oldest first, and the WAL range archived.
    public func info() throws -> BackupRepositoryInfo {
        let output = try run("info", ["--output=json"])
        return try BackupRepositoryInfo(json: Data(output.utf8), stanza: stanza)
    }

    /// Takes a backup of `kind` now (its own checks: the archive works, the database answers),
    /// in the background: requests come first (bench/backup-cost, docs/operations.md).
    public func backup(_ kind: BackupRecord.Kind, started: (ChildProcess) -> Void = { _ in }) throws {
        try run("backup", ["--type=\(kind.rawValue)"], background: true, started: started)
    }

    /// The lowest priority for CPU and I/O: SCHED_IDLE (it runs when nothing else of its
    /// scheduling group wants the CPU, and never preempts what does; nice alone still let it
    /// cut into requests: bench/backup-cost; any account may choose it), and ionice's idle
    /// class where the disk's scheduler has classes. Each execs the next, so SIGTERM still
    /// reaches the tool.
    static let backgroundPriority = ["/usr/bin/chrt", "--idle", "0", "/usr/bin/ionice", "-t", "-c", "3"]

    /// Whether the repository holds this stanza already (`info` says so without a lock).
    public func stanzaExists() throws -> Bool {
        let output = try run("info", ["--output=json"])
        guard let stanzas = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]],
              let entry = stanzas.first(where: { $0["name"] as? String == stanza }) else { return false }
        // Status 1: "missing stanza path".
        return (entry["status"] as? [String: Any])?["code"] as? Int != 1
    }

    private static func quoted(_ path: String) -> String {
        path.allSatisfy { $0.isLetter || $0.isNumber || "/._-".contains($0) } ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// The repository as `pgbackrest info --output=json` describes one stanza.
public struct BackupRepositoryInfo: Sendable, Equatable {
    /// Its backups, oldest first.
    public let backups: [BackupRecord]
    /// The first and last WAL segment archived (names), when any.
    public let archive: (first: String, last: String)?
    /// The stanza's status: 0 ok; otherwise the tool's message.
    public let problem: String?

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.backups == rhs.backups && lhs.archive?.first == rhs.archive?.first && lhs.archive?.last == rhs.archive?.last && lhs.problem == rhs.problem
    }

    /// The repository's compressed size: every backup's share.
    public var repositoryBytes: Int { backups.reduce(0) { $0 + $1.repositoryBytes } }

    init(json: Data, stanza: String) throws {
        guard let stanzas = try JSONSerialization.jsonObject(with: json) as? [[String: Any]],
              let entry = stanzas.first(where: { $0["name"] as? String == stanza }) else {
            throw PgBackRest.Failure(command: "info", output: "no stanza \(stanza) in the repository")
        }
        backups = (entry["backup"] as? [[String: Any]] ?? []).compactMap { backup in
            guard let label = backup["label"] as? String, let kind = (backup["type"] as? String).flatMap(BackupRecord.Kind.init(rawValue:)),
                  let times = backup["timestamp"] as? [String: Any], let start = times["start"] as? Int, let stop = times["stop"] as? Int,
                  backup["error"] as? Bool != true else { return nil }
            let info = backup["info"] as? [String: Any] ?? [:]
            let repository = info["repository"] as? [String: Any] ?? [:]
            // A WAL segment's name starts with its timeline, 8 hex digits.
            let walStart = (backup["archive"] as? [String: Any])?["start"] as? String ?? "00000001"
            return BackupRecord(label: label, kind: kind, started: Date(timeIntervalSince1970: TimeInterval(start)),
                                finished: Date(timeIntervalSince1970: TimeInterval(stop)), databaseBytes: info["size"] as? Int ?? 0,
                                repositoryBytes: repository["delta"] as? Int ?? 0, timeline: Int(walStart.prefix(8), radix: 16) ?? 1)
        }
        let ranges = (entry["archive"] as? [[String: Any]] ?? []).compactMap { range -> (String, String)? in
            guard let first = range["min"] as? String, let last = range["max"] as? String else { return nil }
            return (first, last)
        }
        archive = ranges.isEmpty ? nil : (ranges.map(\.0).min()!, ranges.map(\.1).max()!)
        let status = entry["status"] as? [String: Any]
        problem = (status?["code"] as? Int).flatMap { $0 == 0 ? nil : status?["message"] as? String ?? "status \($0)" }
    }
}
