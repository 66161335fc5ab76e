import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Integrations
import Persistence
import PostgresDriver
import Workers

/// `market09 serve`: migrate, listen, and shut down gracefully on SIGTERM/SIGINT.
enum ServeCommand {
    static let help = """
        Usage: market09 serve

        Serves the HTTP API. Without DATABASE_URL it starts a private PostgreSQL cluster
        under MARKET09_DATA_DIR (default .market09/ in the working directory), listening on
        a unix socket only, and stops it again on shutdown. Pending migrations are applied
        first unless MIGRATE_ON_START=false. SIGTERM or SIGINT stops accepting connections,
        lets in-flight requests finish for SHUTDOWN_GRACE_SECONDS, then exits 0.

        Environment:
        \(CommandLineInterface.variableTable)
        """

    /// A server on a database others may share (`DATABASE_URL`) must be given `JWT_SECRET`:
    /// instances that generated their own would refuse each other's tokens. The one
    /// statement of the rule, checked before anything starts.
    private static func requireSecretForSharedDatabase(_ configuration: Configuration) throws {
        guard configuration.databaseURL == nil || configuration.jwtSecret != nil else {
            throw ConfigurationError(name: "JWT_SECRET", reason: "required when DATABASE_URL is set (at least 32 bytes)")
        }
    }

    /// The access-token secrets, newest first. Without `JWT_SECRET`, the embedded
    /// default keeps a random secret in its data directory (so tokens survive restarts);
    /// a server on a shared database must be given one, or instances would disagree.
    private static func signingSecrets(_ configuration: Configuration) throws -> [String] {
        if let secret = configuration.jwtSecret { return [secret] + configuration.jwtPreviousSecrets }
        try requireSecretForSharedDatabase(configuration)
        let path = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("jwt-secret").path
        if let stored = try? String(contentsOfFile: path, encoding: .utf8), stored.utf8.count >= 32 {
            return [stored.trimmingCharacters(in: .whitespacesAndNewlines)] + configuration.jwtPreviousSecrets
        }
        let secret = Base64URL.encode(CryptoPrimitives.randomBytes(48))
        guard FileManager.default.createFile(atPath: path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError(name: "JWT_SECRET", reason: "unset, and \(path) cannot be written to keep a generated one")
        }
        return [secret] + configuration.jwtPreviousSecrets
    }

    /// The read replicas of `DATABASE_READ_URLS`, polled every 200 ms from now on; their
    /// health and lag on `/metrics`.
    private static func readReplicas(_ configuration: Configuration, primary: PostgresPool, lifecycle: Lifecycle,
                                     metrics: Metrics?) async throws -> ReadReplicas? {
        guard !configuration.readURLs.isEmpty else { return nil }
        let replicas = ReadReplicas(primary: primary, urls: configuration.readURLs, poolSize: configuration.poolSize,
                                    statementTimeout: .milliseconds(configuration.statementTimeoutMilliseconds),
                                    maxLag: .milliseconds(configuration.replicaMaxLagMilliseconds),
                                    statementMode: configuration.readStatementMode ?? configuration.statementMode)
        try await lifecycle.start("read replicas", replicas)
        metrics?.addCollector { text in
            let statuses = replicas.statuses()
            text.family("market09_replica_healthy", type: "gauge", help: "1 while a read replica is used (reachable, lag within REPLICA_MAX_LAG_MS).")
            for (index, status) in statuses.enumerated() { text.sample("market09_replica_healthy", ["replica": String(index)], status.healthy ? 1 : 0) }
            text.family("market09_replica_lag_seconds", type: "gauge", help: "How far a read replica was behind the primary at the last poll.")
            // Unknown (never polled, unreachable) is NaN, not a number a dashboard would average in.
            for (index, status) in statuses.enumerated() { text.sample("market09_replica_lag_seconds", ["replica": String(index)], status.lagSeconds ?? .nan) }
            let pools = replicas.poolStatistics()
            for (name, help, value) in [("market09_replica_pool_connections", "Connections (and threads) of each read replica's pool.", \PostgresPool.Statistics.size),
                                        ("market09_replica_pool_busy", "A read replica pool's threads running a job.", \.busy),
                                        ("market09_replica_pool_queued", "Jobs waiting for a thread of a read replica's pool.", \.queued)] {
                text.family(name, type: "gauge", help: help)
                for (index, statistics) in pools.enumerated() { text.sample(name, ["replica": String(index)], Double(statistics[keyPath: value])) }
            }
        }
        return replicas
    }

    /// The contract and its reference page. An `OPENAPI_PATH` or `DOCS_ASSETS_DIR` that
    /// cannot be read stops start-up; an `openapi.yaml` not found beside the executable
    /// only leaves `/openapi.*` and `/docs` out (logged).
    private static func docs(_ configuration: Configuration, executablePath: String, logger: Logger) throws -> DocsController? {
        let path = configuration.openAPIPath ?? locateContract(executablePath: executablePath)
        guard let path else {
            logger.warning("openapi.yaml not found beside the executable: /openapi.yaml, /openapi.json and /docs are not served")
            return nil
        }
        guard let contract = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(name: "OPENAPI_PATH", reason: "\(path) cannot be read")
        }
        do {
            return try DocsController(contract: contract, assets: configuration.docsAssets)
        } catch {
            let name = configuration.docsAssetsDirectory != nil ? "DOCS_ASSETS_DIR" : configuration.docsAssetsURL != nil ? "DOCS_ASSETS_INTEGRITY" : "OPENAPI_PATH"
            throw ConfigurationError(name: name, reason: "\(path): \(error)")
        }
    }

    private static func locateContract(executablePath: String) -> String? {
        var directory = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while true {
            let candidate = directory.appendingPathComponent("openapi.yaml").path
            if FileManager.default.isReadableFile(atPath: candidate) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }

    /// The embedded cluster's backups, archiving from now on (or, with `BACKUPS=false`, not);
    /// `nil` for a database at `DATABASE_URL`, whose deployment backs it up.
    private static func embeddedBackups(_ configuration: Configuration, environment: [String: String], logger: Logger) async throws -> EmbeddedBackups? {
        guard configuration.databaseURL == nil else {
            logger.info("backups: the database at DATABASE_URL is backed up by its deployment (docs/operations.md, \"Backups\")")
            return nil
        }
        let directory = DatabaseTarget.absolute(configuration.dataDirectory)
        let cluster = try EmbeddedPostgres(directory: directory, environment: environment)
        let settings = EmbeddedBackups.Settings(
            repository: EmbeddedBackups.repository(for: directory, explicit: configuration.backupDirectory), retainFull: configuration.backupRetainFull,
            retainDays: configuration.backupRetainDays, archiveTimeoutSeconds: configuration.backupArchiveTimeoutSeconds)
        let backups = EmbeddedBackups(cluster: cluster, settings: settings)
        switch try backups.standing() {
        case .live: break
        case .adopted:
            logger.info("this restored directory is the live one now: backups resume on its new timeline, a full one first",
                        ["repository": .string(settings.repository)])
        case .copy(let origin):
            logger.warning("this directory is a restored copy of another: backups stay off here, so that it writes nothing into the live one's repository", [
                "live": .string(origin), "repository": .string(settings.repository),
                "to make it the live one": .string("move it to \(origin), or delete \(directory.path)/\(EmbeddedBackups.restoredForRecord)"),
            ])
            return nil
        }
        guard configuration.backupsEnabled else {
            try await BlockingWork.run(name: "backups") { try backups.disable() }
            logger.warning("backups are off (BACKUPS=false): a lost disk or a mistaken delete cannot be undone")
            return nil
        }
        try await BlockingWork.run(name: "backups") { try backups.enable() }
        var device = (stat(), stat())
        let sameDisk = stat(settings.repository, &device.0) == 0 && stat(cluster.directory.path, &device.1) == 0 && device.0.st_dev == device.1.st_dev
        logger.info("backups on: WAL archived continuously, full and differential backups on schedule", [
            "repository": .string(settings.repository), "archive_timeout_seconds": .int(settings.archiveTimeoutSeconds),
            "note": .string(sameDisk
                ? "the repository is on the database's own disk: it undoes mistakes, not the loss of the disk; set BACKUP_DIR to another disk or a mount"
                : "the repository is on another filesystem than the database"),
        ])
        return backups
    }

    static func run(environment: [String: String], executablePath: String) async -> Int32 {
        let configuration: Configuration
        do {
            configuration = try Configuration.fromEnvironment(environment)
            try requireSecretForSharedDatabase(configuration)
        } catch {
            // A JSON line like every other the server writes: log shippers parse it, and
            // an operator reading a terminal still sees the reason in `error`.
            return startUpFailed(error, logger: Logger(minimumLevel: .info))
        }
        // The access log's lines wait up to 20 ms for company: one `write(2)` for many.
        let logger = Logger(minimumLevel: configuration.logLevel, holdingInfoLines: true)
        // Watched before anything starts: a SIGTERM during start-up is kept, not lost.
        let shutdown = ShutdownSignal()
        logger.info("starting", ["pid": .int(Int(getpid()))])
        // Everything started is stopped here, in reverse, on every path.
        let lifecycle = Lifecycle(logger: logger)
        let code: Int32
        do {
            try await serve(configuration, environment: environment, executablePath: executablePath, lifecycle: lifecycle,
                            shutdown: shutdown, logger: logger)
            code = 0
        } catch {
            code = startUpFailed(error, logger: logger)
        }
        await lifecycle.stopAll()
        if code == 0 { logger.info("stopped") }
        return code
    }

    private static func startUpFailed(_ error: any Error, logger: Logger) -> Int32 {
        logger.error("start-up failed", ["error": .string(String(describing: error))])
        return 1
    }

    /// Starts the database, the pool, the background jobs and the HTTP engine, in that
    /// order, and returns at SIGTERM or SIGINT (at once if one came while starting).
    private static func serve(_ configuration: Configuration, environment: [String: String], executablePath: String,
                              lifecycle: Lifecycle, shutdown: ShutdownSignal, logger: Logger) async throws {
        let database = try await DatabaseTarget.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, logger: logger)
        lifecycle.started("database") { await database.release(logger: logger) }
        let backups = try await embeddedBackups(configuration, environment: environment, logger: logger)
        let pool = PostgresPool(.init(url: database.url, size: configuration.poolSize,
                                      statementTimeout: .milliseconds(configuration.statementTimeoutMilliseconds),
                                      statementMode: configuration.statementMode))
        lifecycle.started("pool") { await pool.close() }
        if configuration.migrateOnStart {
            let directory = try Migration.locateDirectory(environment: environment, executablePath: executablePath)
            let applied = try await Migrator(pool: pool, migrations: Migration.load(from: directory)).migrate()
            logger.info("migrations applied", ["count": .int(applied.count), "files": .string(applied.map(\.fileName).joined(separator: ","))])
        }
        var auth = configuration.auth
        auth.signingKeys = try signingSecrets(configuration).map(AuthSettings.key(secret:))
        if let backups { try await BlockingWork.run(name: "backups") { try backups.saveSecrets() } }
        let metrics = configuration.metricsEnabled ? Metrics() : nil
        if let metrics { ServerMetrics.register(on: metrics, pool: pool, startedAt: Date()) }
        let media = configuration.media
        if let metrics { ServerMetrics.registerDisk(on: metrics, media: media) }
        let replicas = try await readReplicas(configuration, primary: pool, lifecycle: lifecycle, metrics: metrics)
        var dependencies = Application.Dependencies.live(pool: pool, reads: replicas, auth: auth, media: media, logger: logger, metrics: metrics)
        dependencies.supabase = configuration.supabaseAnonKey.map(SupabaseSettings.init(anonKey:))
        dependencies.influencerRequestRetryAfter = TimeInterval(configuration.influencerRequestRetryAfterSeconds)
        dependencies.ingest?.requestsPerMinute = configuration.ingestRequestsPerMinute
        dependencies.ingest?.rules = configuration.verificationRules
        enableConsole(&dependencies, configuration, pool: pool, metrics: metrics)
        let consoleApart = try consoleListensApart(configuration)
        try await lifecycle.start("revocation poll", dependencies.revocations)
        // Background jobs repeat on one instance of the deployment: the lease holder.
        let leadership = JobLeadership(lease: PostgresLeaderLease(pool: pool), duration: TimeInterval(configuration.jobLeaseSeconds), logger: logger)
        try await lifecycle.start("job leadership", leadership)
        metrics?.addCollector { text in
            text.gauge("market09_job_leader", help: "1 while this instance holds the lease to run the background jobs.", leadership.isLeader ? 1 : 0)
        }
        // First passes in the background: /health at once, /ready after the feed's (93 s at 10 M).
        let feedMaintenance = BackgroundJobs.feedMaintenance(feed: dependencies.feed, now: dependencies.now, logger: logger,
                                                             metrics: metrics, leadership: leadership)
        try await lifecycle.start("feed maintenance", feedMaintenance.inBackground)
        dependencies.readiness = ServingReadiness(database: pool, feed: feedMaintenance)
        try await lifecycle.start("auth housekeeping", BackgroundJobs.authHousekeeping(pool: pool, tokenLifetime: TimeInterval(auth.accessTokenLifetime),
                                                                        logger: logger, metrics: metrics, leadership: leadership).inBackground)
        if let url = configuration.profileLookupURL {
            let verification = InfluencerVerification(requests: dependencies.influencerRequests,
                                                      lookup: HTTPProfileLookup(url: url, token: configuration.profileLookupToken),
                                                      rules: configuration.verificationRules, now: dependencies.now)
            try await lifecycle.start("influencer verification", BackgroundJobs.influencerVerification(verification, logger: logger, metrics: metrics,
                                                                                                   leadership: leadership).inBackground)
        }
        if let store = dependencies.console {
            try await lifecycle.start("audit retention", auditRetention(store, days: configuration.auditRetentionDays, logger: logger, metrics: metrics,
                                                                        leadership: leadership).inBackground)
        }
        try await lifecycle.start("live search index", BackgroundJobs.liveSearchIndex(LiveSearchIndex(url: database.url, mode: configuration.statementMode),
                                                                                   now: dependencies.now, logger: logger, metrics: metrics,
                                                                                   leadership: leadership).inBackground)
        try await lifecycle.start("like count sweep", BackgroundJobs.likeCountSweep(pool: pool, logger: logger, metrics: metrics, leadership: leadership).inBackground)
        try await lifecycle.start("media pruning", BackgroundJobs.mediaPruning(Uploads(library: dependencies.media, now: dependencies.now), logger: logger,
                                                               metrics: metrics, leadership: leadership).inBackground)
        if let backups {
            // Pruned media stay in the repository as long as the oldest full backup may be restored to.
            let retention = TimeInterval(configuration.backupRetainDays.map { $0 * 86_400 }
                                         ?? (configuration.backupRetainFull + 1) * configuration.backupFullEveryHours * 3600)
            let keeper = BackupKeeper(tool: backups.tool, schedule: configuration.backupSchedule,
                                      mirror: MediaMirror(store: media.directory, mirror: backups.mediaMirror, retention: retention), archive: pool,
                                      logHint: backups.cluster.directory.appendingPathComponent("backup-log").path,
                                      beforeBackup: { try backups.saveSecrets() }, logger: logger)
            if let metrics { keeper.register(on: metrics) }
            try await lifecycle.start("backups", keeper.job(metrics: metrics, leadership: leadership).inBackground)
            lifecycle.started("backup in progress") { await keeper.stop() }
        }
        let responder = Application.makeResponder(
            dependencies: dependencies, auth: auth,
            cors: CORSPolicy(allowedOrigins: configuration.corsAllowedOrigins),
            logger: logger, gzipLevel: configuration.gzipLevel,
            docs: try docs(configuration, executablePath: executablePath, logger: logger),
            readYourWrites: replicas.map { ReadYourWrites(replicas: $0, window: .milliseconds(configuration.replicaMaxLagMilliseconds) + .milliseconds(400)) },
            console: !consoleApart)
        if let metrics { try serveMetrics(metrics, configuration, lifecycle: lifecycle, logger: logger) }
        if consoleApart, dependencies.console != nil {
            try serveConsole(dependencies, auth: auth, configuration, pool: pool, lifecycle: lifecycle, logger: logger)
        }
        var http = configuration.http
        http.spoolDirectory = media.directory + "/incoming"
        try FileManager.default.createDirectory(atPath: http.spoolDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let server = MicroHTTPServer(configuration: http, responder: responder, logger: logger, metrics: metrics, executor: pool)
        try server.start()
        lifecycle.started("http") { await server.shutdown(gracePeriod: .seconds(configuration.shutdownGraceSeconds)) }
        logger.info("listening", ["host": .string(configuration.http.host), "port": .int(server.port)])
        let signal = await shutdown.wait()
        logger.info("shutting down", ["signal": .int(Int(signal)), "in_flight": .int(server.inFlightCount)])
    }
}
