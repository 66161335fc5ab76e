import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Synchronization
import Workers

/// Backups kept on schedule: a backup when the schedule says one is due, the media store
/// mirrored into the repository, and the archive watched. The server runs one for the
/// embedded database (on the job leader); `market09 backup run` runs one on a deployment's
/// backup host. Its state is on `/metrics`; a failed backup or a failing archive is an
/// `error` log line.
final class BackupKeeper: Sendable {
    private struct State {
        var backups: [BackupRecord] = []
        var listedAt: Date?
        var running = false
        var backupFailures = 0
        /// pg_stat_archiver's count when last read; -1 before the first read (failures from
        /// before this start are not news).
        var archiveFailures = -1
        var archiveBacklogSeconds = 0.0
        var mirrored = 0
        var timeline = 1
        /// The timeline whose predecessors' segments were last pushed from the primary.
        var sealedTimeline: Int?
        var sealedSegments = 0
        /// The backup running now, and the task waiting for it.
        var process: ChildProcess?
        var task: Task<Void, Never>?
        var stopping = false
    }

    private let tool: PgBackRest
    private let schedule: BackupSchedule
    private let mirror: MediaMirror?
    private let archive: PostgresPool?
    private let beforeBackup: @Sendable () throws -> Void
    private let logHint: String
    private let logger: Logger
    private let startedAt = Date()
    private let state = Mutex(State())

    /// Keeps `tool`'s repository: backups by `schedule`, `mirror` synced, the archive of the
    /// cluster `archive` reaches watched (as a superuser or a pg_monitor role); `beforeBackup`
    /// runs before each backup (the embedded default saves its secrets), `logHint` names
    /// where the tool's own log is.
    init(tool: PgBackRest, schedule: BackupSchedule, mirror: MediaMirror?, archive: PostgresPool?, logHint: String,
         beforeBackup: @escaping @Sendable () throws -> Void = {}, logger: Logger) {
        self.tool = tool
        self.schedule = schedule
        self.mirror = mirror
        self.archive = archive
        self.logHint = logHint
        self.beforeBackup = beforeBackup
        self.logger = logger
    }

    /// Every 5 s: the media mirror and the archive's health. A pass never waits for a
    /// backup: one that is due runs in a task of its own (a full one at 1 M posts takes a
    /// minute), at most one at a time.
    func job(metrics: Metrics?, leadership: JobLeadership?) -> RepeatingJob {
        RepeatingJob(name: "backups", interval: .seconds(5), logger: logger, metrics: metrics, leadership: leadership) { [self] in
            if let mirror {
                let pass = try await BlockingWork.run(name: "backups") { try mirror.sync() }
                if pass.copied > 0 { state.withLock { $0.mirrored += pass.copied } }
            }
            if let archive { try await watchArchive(archive) }
            try await backUpIfDue()
        }
    }

    /// pg_stat_archiver's failures and the age of the oldest WAL segment waiting to be
    /// archived (a `.ready` file): a segment is closed at most BACKUP_ARCHIVE_TIMEOUT_SECONDS
    /// after its first write, so with a healthy archive the backlog is empty.
    private func watchArchive(_ pool: PostgresPool) async throws {
        let (failures, oldest, lastError) = try await pool.statement { connection in
            let row = try connection.query("""
                SELECT a.failed_count::int8, extract(epoch FROM now() - min(s.modification))::float8, a.last_failed_wal
                FROM pg_stat_archiver a LEFT JOIN pg_ls_archive_statusdir() s ON s.name LIKE '%.ready'
                GROUP BY a.failed_count, a.last_failed_wal
                """).single()
            return (try row.decode(0, as: Int.self), try row.decode(1, as: Double?.self), try row.decode(2, as: String?.self))
        }
        let newFailures = state.withLock { state in
            defer { state.archiveFailures = failures; state.archiveBacklogSeconds = oldest ?? 0 }
            return state.archiveFailures >= 0 && failures > state.archiveFailures ? failures - state.archiveFailures : 0
        }
        if newFailures > 0 {
            logger.error("WAL archiving failed", ["failures": .int(newFailures), "wal": .string(lastError ?? ""), "log": .string(logHint)])
        }
        try await sealAfterFailover(pool)
    }

    /// On a new timeline (a failover, a restore), the older timelines' segments the new
    /// primary holds are pushed (TimelineSeal): the archive has no gap where the old primary
    /// died with segments unpushed. Once per timeline, and at start.
    private func sealAfterFailover(_ pool: PostgresPool) async throws {
        let sealed = state.withLock { $0.sealedTimeline }
        let seal = TimelineSeal(tool: tool)
        let outcome = try await pool.statement { connection -> (Int, TimelineSeal.Outcome)? in
            guard let timeline = try TimelineSeal.currentTimeline(connection), timeline != sealed else { return nil }
            return (timeline, timeline > 1 ? try seal.seal(connection, before: timeline) : TimelineSeal.Outcome())
        }
        guard let (timeline, result) = outcome else { return }
        state.withLock { state in
            // The timeline written now (the checkpoint's lags a promotion by minutes): the
            // schedule takes a full backup of a new one at once.
            state.timeline = timeline
            state.sealedTimeline = timeline
            state.sealedSegments += result.pushed.count
        }
        if !result.pushed.isEmpty {
            logger.warning("the old timeline's last segments were pushed from the new primary (the old one died before archiving them)",
                           ["timeline": .int(timeline), "segments": .string(result.pushed.joined(separator: " "))])
        } else if sealed != nil {
            logger.info("new timeline: the archive had every segment of the old one", ["timeline": .int(timeline), "checked": .int(result.present)])
        }
    }

    private func backUpIfDue() async throws {
        let listed = state.withLock { $0.listedAt }
        if listed == nil || Date().timeIntervalSince(listed!) > 600 { try await refresh() }
        let kind: BackupRecord.Kind? = state.withLock { state in
            guard !state.running, let kind = schedule.due(after: state.backups, timeline: state.timeline, now: Date()) else { return nil }
            state.running = true
            return kind
        }
        guard let kind else { return }
        let task = Task { [self] in
            let started = Date()
            logger.info("backup started", ["type": .string(kind.rawValue)])
            do {
                try await BlockingWork.run(name: "backups") { [self] in
                    try beforeBackup()
                    try tool.backup(kind) { process in state.withLock { $0.process = process } }
                }
                try await refresh()
                logger.info("backup finished", ["type": .string(kind.rawValue), "seconds": .double(Date().timeIntervalSince(started))])
            } catch where state.withLock({ $0.stopping }) {
                logger.info("backup stopped: the server is shutting down (the next start takes it again)", ["type": .string(kind.rawValue)])
            } catch {
                state.withLock { $0.backupFailures += 1 }
                logger.error("backup failed", ["type": .string(kind.rawValue), "error": .string(String(describing: error))])
            }
            state.withLock { state in
                state.running = false
                state.process = nil
            }
        }
        state.withLock { $0.task = task }
    }

    /// Stops a backup in progress (pgBackRest ends it cleanly on SIGTERM, lock released) and
    /// waits for it: the server stops its cluster next.
    func stop() async {
        let (process, task) = state.withLock { state in
            state.stopping = true
            return (state.process, state.task)
        }
        process?.send(SIGTERM)
        await task?.value
    }

    /// The repository's backups, read again.
    private func refresh() async throws {
        let info = try await BlockingWork.run(name: "backups") { [tool] in try tool.info() }
        state.withLock { state in
            state.backups = info.backups
            state.listedAt = Date()
        }
    }

    /// The keeper's state on `/metrics`.
    func register(on metrics: Metrics) {
        metrics.addCollector { [self] text in
            let state = state.withLock { $0 }
            let last = state.backups.map(\.finished).max() ?? startedAt
            text.gauge("market09_backup_age_seconds", help: "Seconds since the last good backup ended (since backups began, before the first).",
                       Date().timeIntervalSince(last))
            text.gauge("market09_backup_repository_bytes", help: "Bytes the backups take in the repository (compressed).",
                       Double(state.backups.reduce(0) { $0 + $1.repositoryBytes }))
            text.gauge("market09_backup_archive_backlog_seconds",
                       help: "Age of the oldest WAL segment waiting to be archived (0: the archive keeps up).", state.archiveBacklogSeconds)
            text.family("market09_backup_archive_failures_total", type: "counter", help: "WAL archiving attempts that failed (pg_stat_archiver).")
            text.sample("market09_backup_archive_failures_total", [:], Double(max(0, state.archiveFailures)))
            text.family("market09_backup_failures_total", type: "counter", help: "Backups that failed.")
            text.sample("market09_backup_failures_total", [:], Double(state.backupFailures))
            text.family("market09_backup_sealed_segments_total", type: "counter",
                        help: "WAL segments of an old timeline pushed from a new primary after a failover (the old one had not archived them).")
            text.sample("market09_backup_sealed_segments_total", [:], Double(state.sealedSegments))
            text.family("market09_backup_media_mirrored_total", type: "counter", help: "Media files copied into the repository.")
            text.sample("market09_backup_media_mirrored_total", [:], Double(state.mirrored))
        }
    }
}
