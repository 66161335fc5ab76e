import Data
import Foundation

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

    /// The access-token secrets, newest first. Without `JWT_SECRET`, the embedded
    /// default keeps a random secret in its data directory (so tokens survive restarts);
    /// a server on a shared database must be given one, or instances would disagree.
    private static func signingSecrets(_ configuration: Configuration) throws -> [String] {
        if let secret = configuration.jwtSecret { return [secret] + configuration.jwtPreviousSecrets }
        guard configuration.databaseURL == nil else {
            throw ConfigurationError(name: "JWT_SECRET", reason: "required when DATABASE_URL is set (at least 32 bytes)")
        }
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

    /// Every minute, on whichever instance gets the job's lock: revocation and role-change
    /// rows older than a token lifetime (plus 2 minutes for clock skew), refresh tokens of
    /// sessions revoked that long ago, and refresh tokens spent over 30 days ago.
    private static func authHousekeeping(pool: PostgresPool, tokenLifetime: TimeInterval, logger: Logger) -> RepeatingJob {
        let housekeeping = PostgresSessionHousekeeping(pool: pool)
        return RepeatingJob(name: "auth housekeeping", interval: .seconds(60), logger: logger) {
            let now = Date()
            guard let report = try await housekeeping.prune(horizon: now.addingTimeInterval(-tokenLifetime - 120), spentTokenRetention: 30 * 86_400, now: now),
                  report != PostgresSessionHousekeeping.Report() else { return }
            logger.info("auth housekeeping", ["revocations": .int(report.revocations), "role_changes": .int(report.roleChanges),
                                              "refresh_tokens": .int(report.refreshTokens)])
        }
    }

    static func run(environment: [String: String], executablePath: String) async -> Int32 {
        let configuration: Configuration
        do {
            configuration = try Configuration.fromEnvironment(environment)
        } catch {
            return CommandLineInterface.fail(error)
        }
        if configuration.databaseURL != nil && configuration.jwtSecret == nil {
            return CommandLineInterface.fail(ConfigurationError(name: "JWT_SECRET", reason: "required when DATABASE_URL is set (at least 32 bytes)"))
        }
        let logger = Logger(minimumLevel: configuration.logLevel)
        let database: DatabaseTarget
        do {
            database = try await DatabaseTarget.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, logger: logger)
        } catch {
            return CommandLineInterface.fail(error)
        }
        let pool = PostgresPool(.init(url: database.url, size: configuration.poolSize,
                                      statementTimeout: .milliseconds(configuration.statementTimeoutMilliseconds)))
        // Background jobs that use the pool; stopped (awaited) before it closes on every path.
        var jobs: [@Sendable () async -> Void] = []
        func teardown() async {
            for stop in jobs.reversed() { await stop() }
            await pool.close()
            await database.release(logger: logger)
        }
        do {
            if configuration.migrateOnStart {
                let directory = try Migration.locateDirectory(environment: environment, executablePath: executablePath)
                let applied = try await Migrator(pool: pool, migrations: Migration.load(from: directory)).migrate()
                logger.info("migrations applied", ["count": .int(applied.count), "files": .string(applied.map(\.fileName).joined(separator: ","))])
            }
            var auth = configuration.auth
            auth.signingKeys = try signingSecrets(configuration).map(AuthSettings.key(secret:))
            let dependencies = Application.Dependencies.live(pool: pool, auth: auth, logger: logger)
            try await dependencies.revocations.start()
            jobs.append(dependencies.revocations.stop)
            let feedMaintenance = FeedMaintenance(feed: dependencies.feed, now: dependencies.now, logger: logger)
            try await feedMaintenance.start()
            jobs.append(feedMaintenance.stop)
            let housekeeping = authHousekeeping(pool: pool, tokenLifetime: TimeInterval(auth.accessTokenLifetime), logger: logger)
            try await housekeeping.start()
            jobs.append(housekeeping.stop)
            let responder = Application.makeResponder(
                dependencies: dependencies, auth: auth,
                cors: CORSPolicy(allowedOrigins: configuration.corsAllowedOrigins),
                logger: logger)
            let server = MicroHTTPServer(configuration: configuration.http, responder: responder, logger: logger, executor: pool)
            try server.start()
            logger.info("listening", ["host": .string(configuration.http.host), "port": .int(server.port)])
            let signal = await ShutdownSignal.next()
            logger.info("shutting down", ["signal": .int(Int(signal)), "in_flight": .int(server.inFlightCount)])
            await server.shutdown(gracePeriod: .seconds(configuration.shutdownGraceSeconds))
            await teardown()
            logger.info("stopped")
            return 0
        } catch {
            await teardown()
            return CommandLineInterface.fail(error)
        }
    }
}
