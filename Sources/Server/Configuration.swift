import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver

/// Everything `market09 serve` reads from its environment, validated up front so that a
/// bad value stops start-up with one line naming the variable.
public struct Configuration: Sendable {
    /// libpq URL of the database; `nil` selects the embedded cluster in ``dataDirectory``.
    public var databaseURL: String?
    /// Where the embedded cluster lives (relative to the working directory).
    public var dataDirectory: String = ".market09"
    /// HTTP transport settings.
    public var http = HTTPServerConfiguration()
    /// PostgreSQL connections (and pool threads).
    public var poolSize = 4
    /// Named prepared statements, or unnamed ones (PgBouncer in transaction mode).
    public var statementMode = PostgresConnection.StatementMode.prepared
    /// Streaming replicas for reads (`DATABASE_READ_URLS`, space-separated URLs).
    public var readURLs: [String] = []
    /// How statements reach the replicas; nil: as `statementMode`. PgBouncer usually sits
    /// in front of the primary only, and unnamed statements cost reads up to 8× in tps
    /// (detail 23,559 → 2,860 under pgbench): replicas reached directly keep prepared ones.
    public var readStatementMode: PostgresConnection.StatementMode?
    /// A replica lagging more than this is skipped until it catches up.
    public var replicaMaxLagMilliseconds = 1000
    /// `statement_timeout` of the server's database sessions, in milliseconds.
    public var statementTimeoutMilliseconds = 2_000
    /// Minimum level of log lines.
    public var logLevel = Logger.Level.info
    /// Origins allowed by CORS; empty disables CORS headers.
    public var corsAllowedOrigins: [String] = []
    /// Whether `serve` applies pending migrations before listening.
    public var migrateOnStart = true
    /// Seconds in-flight requests get to finish on SIGTERM/SIGINT.
    public var shutdownGraceSeconds = 10
    /// Seconds of the lease naming the instance that runs the background jobs: a killed
    /// leader is replaced within 4/3 of it.
    public var jobLeaseSeconds = 10
    /// HMAC key for access tokens (at least 32 bytes). Unset with the embedded database:
    /// a random key kept in the data directory; unset with `DATABASE_URL`: an error.
    public var jwtSecret: String?
    /// Earlier secrets still accepted for verification while tokens they signed live.
    public var jwtPreviousSecrets: [String] = []
    /// Authentication settings other than the keys.
    public var auth = AuthSettings()
    /// zlib level of gzipped answers; 0 sends every body as it is.
    public var gzipLevel = 1
    /// Whether `GET /metrics` is served.
    public var metricsEnabled = true
    /// The listener of `/metrics`, never the API's: loopback by default, so only this
    /// machine (or, in a container, its own network namespace) can scrape.
    public var metricsHost = "127.0.0.1"
    /// Its port; `nil`: ``defaultMetricsPort``, or any free port when the API's is 0.
    public var metricsPort: Int?
    /// A bearer token scrapes must send, for a metrics listener others can reach.
    public var metricsToken: String?
    /// Whether `/admin` is served.
    public var consoleEnabled = true
    /// The console's own listener, when it is not the API's (both set).
    public var consoleHost: String?
    public var consolePort: Int?
    public var consoleIdleMinutes = 30
    public var auditRetentionDays = 365
    /// The metrics port when none is set (OpenTelemetry's Prometheus exporter's).
    public static let defaultMetricsPort = 9464

    /// The port `/metrics` listens on.
    public var effectiveMetricsPort: Int {
        metricsPort ?? (http.port == 0 ? 0 : Self.defaultMetricsPort)
    }
    /// The contract served at `/openapi.yaml`; `nil`: `openapi.yaml` beside the executable
    /// or in a parent directory.
    public var openAPIPath: String?
    /// Where `/docs` loads Swagger UI from: a base URL, or a local directory served under
    /// `/docs/assets/` (which wins when both are set).
    public var docsAssetsURL: String?
    /// The SRI hashes of `swagger-ui.css` and `swagger-ui-bundle.js` at ``docsAssetsURL``.
    public var docsAssetsIntegrity: [String] = []
    public var docsAssetsDirectory: String?

    /// Where `/docs` loads Swagger UI from: a local directory, a CDN given with its files'
    /// hashes, or the pinned default.
    public var docsAssets: DocsController.Assets {
        if let directory = docsAssetsDirectory { return .directory(directory) }
        if let url = docsAssetsURL { return .remote(url, integrity: docsAssetsIntegrity) }
        return .pinnedCDN
    }
    /// Uploads: `nil` fields take their defaults from the data directory and the address.
    public var mediaDirectory: String?
    public var mediaBaseURL: String?
    public var maxUploadBytes = 10 << 20
    /// What one account may upload, and the store's reserve.
    public var uploadLimits = UploadLimits()
    /// The profile lookup verifying influencer requests; `nil`: requests wait for an admin.
    public var profileLookupURL: URL?
    public var profileLookupToken: String?
    /// The Supabase-compatible surface's anon key; `nil`: the surface is not mounted.
    public var supabaseAnonKey: String?
    /// What a profile needs to become an influencer.
    public var verificationRules = VerificationRules()
    /// Seconds a failed influencer request stands before anyone may request the name again.
    public var influencerRequestRetryAfterSeconds = Int(InfluencerRegistration.defaultRetryAfter)
    /// Ingest API calls per service key per minute.
    public var ingestRequestsPerMinute = 120
    /// Whether the embedded cluster is backed up (pgBackRest, WAL archived continuously).
    public var backupsEnabled = true
    /// The repository; `nil`: `<data dir>/backups` (or the one a restore recorded there).
    public var backupDirectory: String?
    /// Hours between full backups, and between differential ones.
    public var backupFullEveryHours = 168
    public var backupDifferentialEveryHours = 24
    /// Full backups kept, by count; or, when `backupRetainDays` is set, by age.
    public var backupRetainFull = 2
    public var backupRetainDays: Int?
    /// Most seconds between a write and its WAL segment's archiving.
    public var backupArchiveTimeoutSeconds = 3

    /// When backups are due.
    public var backupSchedule: BackupSchedule {
        BackupSchedule(fullEvery: TimeInterval(backupFullEveryHours) * 3600, differentialEvery: TimeInterval(backupDifferentialEveryHours) * 3600)
    }

    /// Where uploads go and how they are addressed: `MEDIA_DIR` or `<data dir>/media`;
    /// `MEDIA_BASE_URL` or this server's own address.
    public var media: MediaSettings {
        let host = ["0.0.0.0", "::"].contains(http.host) ? "localhost" : http.host.contains(":") ? "[\(http.host)]" : http.host
        return MediaSettings(directory: mediaDirectory ?? dataDirectory + "/media", maxUploadBytes: maxUploadBytes,
                             publicBaseURL: mediaBaseURL ?? "http://\(host):\(http.port)", limits: uploadLimits)
    }

    /// The defaults, as documented in ``variables``.
    public init() {}

    /// Reads and validates the environment: each variable of ``variables`` in turn, then
    /// the rules between them.
    public static func fromEnvironment(_ environment: [String: String]) throws -> Configuration {
        let reader = EnvironmentReader(environment)
        var configuration = Configuration()
        for variable in variables { try variable.apply(reader, &configuration) }
        if configuration.docsAssetsURL != nil && configuration.docsAssetsIntegrity.count != 2 {
            throw ConfigurationError(name: "DOCS_ASSETS_INTEGRITY", reason: "DOCS_ASSETS_URL needs the SRI hashes of swagger-ui.css and swagger-ui-bundle.js (two values, space-separated): third-party scripts are never loaded unpinned")
        }
        return configuration
    }
}

/// Why the configuration was rejected: one variable, its value and what was expected.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The variable's name.
    public let name: String
    /// What was wrong.
    public let reason: String
    /// `invalid NAME: reason`.
    public var description: String { "invalid \(name): \(reason)" }
}
