import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Workers

/// `market09 backup run`: the backup host of a deployment (docker-compose.yml's `backup`
/// service, scripts/cluster's keeper): the schedule, the media mirror and the archive
/// watch the embedded default's server runs for itself, for a pgBackRest stanza configured
/// by `PGBACKREST_*` variables or `PGBACKREST_CONFIG`. Runs until SIGTERM or SIGINT.
enum BackupHostCommand {
    static let help = """
        Usage: market09 backup run

        Keeps a deployment's pgBackRest repository: the stanza created once, backups taken on
        schedule (BACKUP_FULL_EVERY_HOURS, BACKUP_DIFFERENTIAL_EVERY_HOURS; from the standby
        when PGBACKREST_BACKUP_STANDBY=y), the media store MEDIA_DIR mirrored into
        BACKUP_MEDIA_MIRROR (default: <PGBACKREST_REPO1_PATH>/media), the primary's archive
        watched through DATABASE_URL when set (a superuser or pg_monitor role), and /metrics
        on METRICS_HOST:METRICS_PORT (the same series as the embedded default's server).
        Needs PGBACKREST_STANZA (or PGBACKREST_CONFIG); the tool reads its other options from
        PGBACKREST_* variables (docker-compose.yml sets them).
        """

    static func run(environment: [String: String]) async -> Int32 {
        let logger = Logger(minimumLevel: .info)
        let shutdown = ShutdownSignal()
        let lifecycle = Lifecycle(logger: logger)
        let code: Int32
        do {
            try await keep(environment: environment, lifecycle: lifecycle, logger: logger)
            let signal = await shutdown.wait()
            logger.info("shutting down", ["signal": .int(Int(signal))])
            code = 0
        } catch {
            logger.error("start-up failed", ["error": .string(String(describing: error))])
            code = 1
        }
        await lifecycle.stopAll()
        return code
    }

    private static func keep(environment: [String: String], lifecycle: Lifecycle, logger: Logger) async throws {
        guard environment["PGBACKREST_STANZA"] != nil || environment["PGBACKREST_CONFIG"] != nil else {
            throw CommandFailure("backup run needs PGBACKREST_STANZA (and the PGBACKREST_* options) or PGBACKREST_CONFIG")
        }
        var configuration = try Configuration.fromEnvironment(environment)
        let tool = try BackupRepository.resolve(environment).tool
        try await BlockingWork.run(name: "backups") {
            if try !tool.stanzaExists() { try tool.run("stanza-create") }
        }
        logger.info("backup host keeping stanza", ["stanza": .string(tool.stanza)])
        let mirrorDirectory = environment["BACKUP_MEDIA_MIRROR"] ?? environment["PGBACKREST_REPO1_PATH"].map { $0 + "/media" }
        let mirror = zip2(configuration.mediaDirectory, mirrorDirectory).map { store, mirror in
            MediaMirror(store: store, mirror: mirror, retention: TimeInterval(configuration.backupRetainDays.map { $0 * 86_400 }
                                                                              ?? (configuration.backupRetainFull + 1) * configuration.backupFullEveryHours * 3600))
        }
        var archive: PostgresPool?
        if let url = configuration.databaseURL {
            let pool = PostgresPool(.init(url: url, size: 1))
            lifecycle.started("pool") { await pool.close() }
            archive = pool
        }
        let keeper = BackupKeeper(tool: tool, schedule: configuration.backupSchedule, mirror: mirror, archive: archive,
                                  logHint: environment["PGBACKREST_LOG_PATH"] ?? "/var/log/pgbackrest", logger: logger)
        let metrics = configuration.metricsEnabled ? Metrics() : nil
        if let metrics {
            keeper.register(on: metrics)
            configuration.http.port = 0
            try ServeCommand.serveMetrics(metrics, configuration, lifecycle: lifecycle, logger: logger)
        }
        try await lifecycle.start("backups", keeper.job(metrics: metrics, leadership: nil))
        lifecycle.started("backup in progress") { await keeper.stop() }
    }

    private static func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
        guard let a, let b else { return nil }
        return (a, b)
    }
}
