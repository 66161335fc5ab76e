import App
import Cryptography
import Persistence
import Domain
import Foundation
import HTTPServer

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

    /// Where uploads go and how they are addressed: `MEDIA_DIR` or `<data dir>/media`;
    /// `MEDIA_BASE_URL` or this server's own address.
    public var media: MediaSettings {
        let host = ["0.0.0.0", "::"].contains(http.host) ? "localhost" : http.host.contains(":") ? "[\(http.host)]" : http.host
        return MediaSettings(directory: mediaDirectory ?? dataDirectory + "/media", maxUploadBytes: maxUploadBytes,
                             publicBaseURL: mediaBaseURL ?? "http://\(host):\(http.port)", limits: uploadLimits)
    }

    /// The defaults, as documented in ``variables``.
    public init() {}

    /// One documented environment variable.
    public struct Variable: Sendable {
        /// The variable's name.
        public let name: String
        /// Its default, as text.
        public let defaultValue: String
        /// What it controls.
        public let summary: String
    }

    /// Every variable, for `--help` and docs/configuration.md's table.
    public static let variables: [Variable] = [
        Variable(name: "DATABASE_URL", defaultValue: "(embedded)", summary: "PostgreSQL URL (postgres://user:pass@host:port/db). Unset: a private cluster under MARKET09_DATA_DIR."),
        Variable(name: "MARKET09_DATA_DIR", defaultValue: ".market09", summary: "Directory of the embedded PostgreSQL cluster."),
        Variable(name: "HOST", defaultValue: "127.0.0.1", summary: "IPv4 or IPv6 address to listen on (0.0.0.0 in containers)."),
        Variable(name: "PORT", defaultValue: "8080", summary: "TCP port; 0 picks a free one (logged at start)."),
        Variable(name: "HTTP_THREADS", defaultValue: "2", summary: "HTTP engine threads (1–64)."),
        Variable(name: "DATABASE_POOL_SIZE", defaultValue: "4", summary: "PostgreSQL connections (1–100)."),
        Variable(name: "DATABASE_STATEMENTS", defaultValue: "prepared", summary: "prepared, or unnamed through PgBouncer in transaction mode (session settings then from the role)."),
        Variable(name: "DATABASE_READ_URLS", defaultValue: "(none)", summary: "Streaming replicas for reads, space-separated URLs (each with DATABASE_POOL_SIZE connections)."),
        Variable(name: "DATABASE_READ_STATEMENTS", defaultValue: "(DATABASE_STATEMENTS)", summary: "prepared or unnamed, for the replicas alone (PgBouncer in front of the primary only)."),
        Variable(name: "REPLICA_MAX_LAG_MS", defaultValue: "1000", summary: "A replica further behind the primary than this is skipped until it catches up."),
        Variable(name: "STATEMENT_TIMEOUT_MS", defaultValue: "2000", summary: "Longest a request's statement may run; then 503 query_timeout (100–600000)."),
        Variable(name: "MAX_BODY_BYTES", defaultValue: "1048576", summary: "Largest request body; larger gets 413."),
        Variable(name: "MAX_HEADER_BYTES", defaultValue: "8192", summary: "Largest total header size; larger gets 431."),
        Variable(name: "MAX_URL_BYTES", defaultValue: "4096", summary: "Longest request target; longer gets 414."),
        Variable(name: "IDLE_TIMEOUT_SECONDS", defaultValue: "30", summary: "Idle keep-alive connections close after this."),
        Variable(name: "MAX_CONNECTIONS", defaultValue: "1024", summary: "Simultaneous connections."),
        Variable(name: "HEADER_TIMEOUT_SECONDS", defaultValue: "10", summary: "Total seconds a request head may take, however steadily it trickles (1–600)."),
        Variable(name: "BODY_TIMEOUT_SECONDS", defaultValue: "30", summary: "Total seconds a request body may take once its head arrived (1–3600)."),
        Variable(name: "MAX_CONNECTIONS_PER_ADDRESS", defaultValue: "64", summary: "Simultaneous connections from one client address (0: no cap; use 0 behind a proxy)."),
        Variable(name: "SHUTDOWN_GRACE_SECONDS", defaultValue: "10", summary: "Time in-flight requests get on SIGTERM/SIGINT."),
        Variable(name: "JOB_LEASE_SECONDS", defaultValue: "10", summary: "Lease of the one instance running background jobs (renewed every third)."),
        Variable(name: "CORS_ALLOWED_ORIGINS", defaultValue: "(none)", summary: "Comma-separated origins, or *; unset disables CORS."),
        Variable(name: "GZIP_LEVEL", defaultValue: "1", summary: "zlib level (1–9) for JSON answers of 1 KB or more to clients accepting gzip; 0: off (a proxy compresses)."),
        Variable(name: "METRICS", defaultValue: "true", summary: "Serve GET /metrics in Prometheus' text format (true/false), on a listener of its own."),
        Variable(name: "METRICS_HOST", defaultValue: "127.0.0.1", summary: "Address of the metrics listener (never the API's port; 0.0.0.0 in a container scraped from its network)."),
        Variable(name: "METRICS_PORT", defaultValue: "9464", summary: "Port of the metrics listener (0: any free one; 0 too when PORT is 0)."),
        Variable(name: "METRICS_TOKEN", defaultValue: "(none)", summary: "Bearer token scrapes must send (at least 16 characters); set it when others can reach METRICS_HOST."),
        Variable(name: "OPENAPI_PATH", defaultValue: "(found)", summary: "The contract served at /openapi.yaml, /openapi.json and /docs; default: openapi.yaml beside the executable or a parent."),
        Variable(name: "DOCS_ASSETS_URL", defaultValue: "(jsDelivr)", summary: "Base URL of swagger-ui.css and swagger-ui-bundle.js for /docs (default: swagger-ui-dist 5.17.14 on jsDelivr, pinned by hash)."),
        Variable(name: "DOCS_ASSETS_INTEGRITY", defaultValue: "(pinned)", summary: "With DOCS_ASSETS_URL: the two files' SRI hashes, CSS's then the script's, space-separated (sha384-…)."),
        Variable(name: "DOCS_ASSETS_DIR", defaultValue: "(none)", summary: "A local directory with those two files, served under /docs/assets/ (offline use)."),
        Variable(name: "MEDIA_DIR", defaultValue: "(data dir)/media", summary: "Where uploaded images are stored (content-addressed files)."),
        Variable(name: "MEDIA_BASE_URL", defaultValue: "http://HOST:PORT", summary: "Public base URL of /media/ in upload answers, e.g. https://api.09market.kr."),
        Variable(name: "MAX_UPLOAD_BYTES", defaultValue: "10485760", summary: "Largest uploaded file; larger gets 413 file_too_large."),
        Variable(name: "UPLOADS_PER_HOUR", defaultValue: "30", summary: "Uploads per account per hour; more get 429 upload_rate_limited."),
        Variable(name: "UPLOAD_BYTES_PER_DAY", defaultValue: "104857600", summary: "Bytes per account per 24 hours (as declared); more get 429 upload_quota_exceeded."),
        Variable(name: "UPLOAD_MIN_FREE_BYTES", defaultValue: "1073741824", summary: "Free space the media disk keeps; below it uploads get 507 before a byte is written."),
        Variable(name: "UPLOAD_MAX_UNREFERENCED_BYTES", defaultValue: "2147483648", summary: "Bytes of uploads no post or profile refers to yet, in all; beyond it uploads get 507."),
        Variable(name: "PROFILE_LOOKUP_URL", defaultValue: "(none)", summary: "Instagram profile lookup checking influencer requests (docs/api.md); unset: requests wait for an admin."),
        Variable(name: "PROFILE_LOOKUP_TOKEN", defaultValue: "(none)", summary: "Bearer token sent to the profile lookup."),
        Variable(name: "SUPABASE_ANON_KEY", defaultValue: "(none)", summary: "Mounts /auth/v1, /functions/v1 and /rest/v1 for the unmodified 09Market app; requests must carry it as apikey."),
        Variable(name: "INFLUENCER_MIN_FOLLOWERS", defaultValue: "10000", summary: "Followers a requested influencer needs."),
        Variable(name: "INFLUENCER_REQUIRE_PUBLIC", defaultValue: "true", summary: "Refuse private accounts (true/false)."),
        Variable(name: "INFLUENCER_REQUIRE_EXTERNAL_URL", defaultValue: "true", summary: "Refuse profiles without an external URL (true/false)."),
        Variable(name: "INFLUENCER_REQUEST_RETRY_AFTER_SECONDS", defaultValue: "86400", summary: "A failed request for a name stands this long; then anyone may request it again (admins: retry)."),
        Variable(name: "INGEST_REQUESTS_PER_MINUTE", defaultValue: "120", summary: "/v1/ingest calls per service API key per minute (up to 1,000 rows each); more get 429 rate_limited."),
        Variable(name: "MIGRATE_ON_START", defaultValue: "true", summary: "Apply pending migrations before serving (true/false)."),
        Variable(name: "MIGRATIONS_DIR", defaultValue: "(found)", summary: "SQL migrations; default: migrations/ beside the executable or a parent."),
        Variable(name: "LOG_LEVEL", defaultValue: "info", summary: "debug, info, warning or error."),
        Variable(name: "JWT_SECRET", defaultValue: "(see text)", summary: "HMAC key for access tokens, ≥ 32 bytes. Required with DATABASE_URL; embedded: kept in the data dir."),
        Variable(name: "JWT_PREVIOUS_SECRETS", defaultValue: "(none)", summary: "Comma-separated older keys still accepted (key rotation)."),
        Variable(name: "JWT_ISSUER", defaultValue: "market09", summary: "iss of access tokens."),
        Variable(name: "JWT_AUDIENCE", defaultValue: "market09-app", summary: "aud of access tokens."),
        Variable(name: "ACCESS_TOKEN_TTL_SECONDS", defaultValue: "3600", summary: "Access-token lifetime (60–86400)."),
        Variable(name: "REFRESH_REUSE_GRACE_SECONDS", defaultValue: "10", summary: "A rotated refresh token reused within this gets the same pair."),
        Variable(name: "SESSION_MAX_LIFETIME_SECONDS", defaultValue: "(none)", summary: "Sessions end this long after sign-in."),
        Variable(name: "SESSION_MAX_INACTIVITY_SECONDS", defaultValue: "(none)", summary: "Sessions end after this long without a refresh."),
        Variable(name: "PASSWORD_HASH_ITERATIONS", defaultValue: "600000", summary: "PBKDF2-SHA256 iterations for new hashes (10000–10000000)."),
        Variable(name: "PASSWORD_HASH_THREADS", defaultValue: "cores/2", summary: "Threads running the password KDF at once (at least 1, at most the cores)."),
        Variable(name: "PASSWORD_HASH_QUEUE", defaultValue: "16", summary: "Password checks that may wait for a KDF thread; more answer 503 busy."),
        Variable(name: "RATE_LIMIT_ANONYMOUS_PER_HOUR", defaultValue: "30", summary: "Anonymous sign-ups per client address per hour."),
        Variable(name: "RATE_LIMIT_TOKEN_PER_5_MINUTES", defaultValue: "150", summary: "Token and sign-up calls per client address per 5 minutes."),
        Variable(name: "RATE_LIMIT_FAILED_PASSWORD_PER_15_MINUTES", defaultValue: "10", summary: "Failed password checks per email per 15 minutes (sign-in, upgrade, merge)."),
        Variable(name: "RATE_LIMIT_FAILED_PASSWORD_PER_ADDRESS_PER_15_MINUTES", defaultValue: "50", summary: "Failed password checks per client address per 15 minutes."),
        Variable(name: "REVOCATION_MAX_AGE_MS", defaultValue: "3000", summary: "While the last read of sign-outs made elsewhere is older than this, tokens may read but not write (503)."),
        Variable(name: "TRUSTED_PROXIES", defaultValue: "(none)", summary: "Comma-separated proxy addresses whose X-Forwarded-For is believed."),
        Variable(name: "GOOGLE_CLIENT_IDS", defaultValue: "(none)", summary: "Comma-separated Google client ids; unset disables Google sign-in."),
        Variable(name: "GOOGLE_JWKS", defaultValue: "(Google)", summary: "Google key set: https URL or file path."),
        Variable(name: "APPLE_CLIENT_IDS", defaultValue: "(none)", summary: "Comma-separated Apple client ids; unset disables Apple sign-in."),
        Variable(name: "APPLE_JWKS", defaultValue: "(Apple)", summary: "Apple key set: https URL or file path."),
        Variable(name: "PG_BIN_DIR", defaultValue: "(found)", summary: "PostgreSQL server binaries for the embedded cluster."),
    ]

    /// Reads and validates the environment.
    public static func fromEnvironment(_ environment: [String: String]) throws -> Configuration {
        let reader = EnvironmentReader(environment)
        var configuration = Configuration()
        configuration.databaseURL = try reader.string("DATABASE_URL") { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") || $0.contains("=") ? nil : "expected a postgres:// URL" }
        configuration.dataDirectory = try reader.string("MARKET09_DATA_DIR") ?? configuration.dataDirectory
        configuration.http.host = try reader.string("HOST") { ListeningSocket.isAddress($0) ? nil : "expected an IPv4 or IPv6 address" } ?? configuration.http.host
        configuration.http.port = try reader.integer("PORT", in: 0...65535) ?? configuration.http.port
        configuration.http.threads = try reader.integer("HTTP_THREADS", in: 1...64) ?? configuration.http.threads
        configuration.poolSize = try reader.integer("DATABASE_POOL_SIZE", in: 1...100) ?? configuration.poolSize
        configuration.statementMode = try reader.statementMode("DATABASE_STATEMENTS") ?? configuration.statementMode
        configuration.readStatementMode = try reader.statementMode("DATABASE_READ_STATEMENTS")
        configuration.readURLs = try reader.string("DATABASE_READ_URLS") { text in
            text.split(separator: " ").allSatisfy { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") } ? nil : "expected postgres:// URLs separated by spaces"
        }.map { $0.split(separator: " ").map(String.init) } ?? []
        configuration.replicaMaxLagMilliseconds = try reader.integer("REPLICA_MAX_LAG_MS", in: 100...600_000) ?? configuration.replicaMaxLagMilliseconds
        configuration.statementTimeoutMilliseconds = try reader.integer("STATEMENT_TIMEOUT_MS", in: 100...600_000) ?? configuration.statementTimeoutMilliseconds
        configuration.http.maxBodyBytes = try reader.integer("MAX_BODY_BYTES", in: 1...(1 << 30)) ?? configuration.http.maxBodyBytes
        configuration.http.maxHeaderBytes = try reader.integer("MAX_HEADER_BYTES", in: 1024...(1 << 20)) ?? configuration.http.maxHeaderBytes
        configuration.http.maxURLBytes = try reader.integer("MAX_URL_BYTES", in: 256...(1 << 20)) ?? configuration.http.maxURLBytes
        configuration.http.idleTimeoutSeconds = try reader.integer("IDLE_TIMEOUT_SECONDS", in: 1...3600) ?? configuration.http.idleTimeoutSeconds
        configuration.http.maxConnections = try reader.integer("MAX_CONNECTIONS", in: 1...100_000) ?? configuration.http.maxConnections
        configuration.http.headerTimeoutSeconds = try reader.integer("HEADER_TIMEOUT_SECONDS", in: 1...600) ?? configuration.http.headerTimeoutSeconds
        configuration.http.bodyTimeoutSeconds = try reader.integer("BODY_TIMEOUT_SECONDS", in: 1...3600) ?? configuration.http.bodyTimeoutSeconds
        configuration.http.maxConnectionsPerAddress = try reader.integer("MAX_CONNECTIONS_PER_ADDRESS", in: 0...100_000) ?? configuration.http.maxConnectionsPerAddress
        configuration.shutdownGraceSeconds = try reader.integer("SHUTDOWN_GRACE_SECONDS", in: 0...3600) ?? configuration.shutdownGraceSeconds
        configuration.jobLeaseSeconds = try reader.integer("JOB_LEASE_SECONDS", in: 2...600) ?? configuration.jobLeaseSeconds
        configuration.corsAllowedOrigins = try reader.list("CORS_ALLOWED_ORIGINS")
        configuration.migrateOnStart = try reader.boolean("MIGRATE_ON_START") ?? configuration.migrateOnStart
        configuration.gzipLevel = try reader.integer("GZIP_LEVEL", in: 0...9) ?? configuration.gzipLevel
        configuration.metricsEnabled = try reader.boolean("METRICS") ?? configuration.metricsEnabled
        configuration.metricsHost = try reader.string("METRICS_HOST") { ListeningSocket.isAddress($0) ? nil : "expected an IPv4 or IPv6 address" }
            ?? configuration.metricsHost
        configuration.metricsPort = try reader.integer("METRICS_PORT", in: 0...65535)
        configuration.metricsToken = try reader.string("METRICS_TOKEN") { $0.utf8.count >= 16 && !$0.contains(" ") ? nil : "expected at least 16 characters without spaces" }
        configuration.openAPIPath = try reader.string("OPENAPI_PATH")
        configuration.docsAssetsURL = try reader.string("DOCS_ASSETS_URL") { $0.hasPrefix("https://") || $0.hasPrefix("http://") || $0.hasPrefix("/") ? nil : "expected an http(s) URL or an absolute path" }
        configuration.docsAssetsIntegrity = try reader.string("DOCS_ASSETS_INTEGRITY")?.split(separator: " ").map(String.init) ?? []
        if configuration.docsAssetsURL != nil && configuration.docsAssetsIntegrity.count != 2 {
            throw ConfigurationError(name: "DOCS_ASSETS_INTEGRITY", reason: "DOCS_ASSETS_URL needs the SRI hashes of swagger-ui.css and swagger-ui-bundle.js (two values, space-separated): third-party scripts are never loaded unpinned")
        }
        configuration.docsAssetsDirectory = try reader.string("DOCS_ASSETS_DIR")
        configuration.mediaDirectory = try reader.string("MEDIA_DIR")
        configuration.mediaBaseURL = try reader.string("MEDIA_BASE_URL") {
            ($0.hasPrefix("https://") || $0.hasPrefix("http://")) && !$0.hasSuffix("/") ? nil : "expected an http(s) URL without a trailing /"
        }
        configuration.maxUploadBytes = try reader.integer("MAX_UPLOAD_BYTES", in: 1024...(1 << 30)) ?? configuration.maxUploadBytes
        let limits = configuration.uploadLimits
        configuration.uploadLimits.perHour = try reader.integer("UPLOADS_PER_HOUR", in: 1...1_000_000) ?? limits.perHour
        configuration.uploadLimits.bytesPerDay = try reader.integer("UPLOAD_BYTES_PER_DAY", in: 1024...(1 << 41)) ?? limits.bytesPerDay
        configuration.uploadLimits.minimumFreeBytes = try reader.integer("UPLOAD_MIN_FREE_BYTES", in: 0...(1 << 50)) ?? limits.minimumFreeBytes
        configuration.uploadLimits.maximumUnreferencedBytes = try reader.integer("UPLOAD_MAX_UNREFERENCED_BYTES", in: 0...(1 << 50))
            ?? limits.maximumUnreferencedBytes
        configuration.profileLookupURL = try reader.string("PROFILE_LOOKUP_URL") { $0.hasPrefix("https://") || $0.hasPrefix("http://") ? nil : "expected an http(s) URL" }
            .flatMap(URL.init(string:))
        configuration.profileLookupToken = try reader.string("PROFILE_LOOKUP_TOKEN")
        configuration.supabaseAnonKey = try reader.string("SUPABASE_ANON_KEY") { $0.utf8.count >= 16 ? nil : "expected at least 16 characters" }
        configuration.verificationRules.minimumFollowers = try reader.integer("INFLUENCER_MIN_FOLLOWERS", in: 0...1_000_000_000)
            ?? configuration.verificationRules.minimumFollowers
        configuration.verificationRules.requirePublic = try reader.boolean("INFLUENCER_REQUIRE_PUBLIC") ?? configuration.verificationRules.requirePublic
        configuration.verificationRules.requireExternalURL = try reader.boolean("INFLUENCER_REQUIRE_EXTERNAL_URL")
            ?? configuration.verificationRules.requireExternalURL
        configuration.influencerRequestRetryAfterSeconds = try reader.integer("INFLUENCER_REQUEST_RETRY_AFTER_SECONDS", in: 0...(365 * 86_400))
            ?? configuration.influencerRequestRetryAfterSeconds
        configuration.ingestRequestsPerMinute = try reader.integer("INGEST_REQUESTS_PER_MINUTE", in: 1...100_000) ?? configuration.ingestRequestsPerMinute
        if let text = try reader.string("LOG_LEVEL") {
            guard let level = Logger.Level(name: text) else {
                throw ConfigurationError(name: "LOG_LEVEL", reason: "'\(text)' is not debug, info, warning or error")
            }
            configuration.logLevel = level
        }
        configuration.jwtSecret = try reader.string("JWT_SECRET") { $0.utf8.count < 32 ? "must be at least 32 bytes" : nil }
        configuration.jwtPreviousSecrets = try reader.list("JWT_PREVIOUS_SECRETS") { $0.utf8.count < 32 ? "every secret must be at least 32 bytes" : nil }
        try readAuth(reader, into: &configuration.auth)
        return configuration
    }

    private static func readAuth(_ reader: EnvironmentReader, into auth: inout AuthSettings) throws {
        auth.issuer = try reader.string("JWT_ISSUER") ?? auth.issuer
        auth.audience = try reader.string("JWT_AUDIENCE") ?? auth.audience
        auth.accessTokenLifetime = try reader.integer("ACCESS_TOKEN_TTL_SECONDS", in: 60...86_400) ?? auth.accessTokenLifetime
        auth.sessions.refreshGrace = TimeInterval(try reader.integer("REFRESH_REUSE_GRACE_SECONDS", in: 0...300) ?? 10)
        auth.sessions.limits.maxLifetime = try reader.integer("SESSION_MAX_LIFETIME_SECONDS", in: 60...(10 * 365 * 86_400)).map(TimeInterval.init)
        auth.sessions.limits.maxInactivity = try reader.integer("SESSION_MAX_INACTIVITY_SECONDS", in: 60...(10 * 365 * 86_400)).map(TimeInterval.init)
        auth.passwordIterations = try reader.integer("PASSWORD_HASH_ITERATIONS", in: 10_000...10_000_000) ?? auth.passwordIterations
        auth.passwordHashThreads = try reader.integer("PASSWORD_HASH_THREADS", in: 1...ProcessInfo.processInfo.activeProcessorCount) ?? auth.passwordHashThreads
        auth.passwordHashQueue = try reader.integer("PASSWORD_HASH_QUEUE", in: 0...10_000) ?? auth.passwordHashQueue
        if let count = try reader.integer("RATE_LIMIT_ANONYMOUS_PER_HOUR", in: 1...1_000_000) { auth.anonymousSignUps = .init(count: count, per: 3600) }
        if let count = try reader.integer("RATE_LIMIT_TOKEN_PER_5_MINUTES", in: 1...1_000_000) { auth.tokenRequests = .init(count: count, per: 300) }
        if let count = try reader.integer("RATE_LIMIT_FAILED_PASSWORD_PER_15_MINUTES", in: 1...1_000_000) { auth.failedPasswordSignIns = .init(count: count, per: 900) }
        if let count = try reader.integer("RATE_LIMIT_FAILED_PASSWORD_PER_ADDRESS_PER_15_MINUTES", in: 1...1_000_000) { auth.failedPasswordsPerAddress = .init(count: count, per: 900) }
        if let milliseconds = try reader.integer("REVOCATION_MAX_AGE_MS", in: 500...600_000) { auth.revocationMaxAge = .milliseconds(milliseconds) }
        auth.trustedProxies = try reader.list("TRUSTED_PROXIES") { ListeningSocket.isAddress($0) ? nil : "'\($0)' is not an IP address" }
        auth.googleClientIDs = try reader.list("GOOGLE_CLIENT_IDS")
        auth.appleClientIDs = try reader.list("APPLE_CLIENT_IDS")
        if let source = try reader.string("GOOGLE_JWKS") { auth.googleJWKS = JWKSSource(source) }
        if let source = try reader.string("APPLE_JWKS") { auth.appleJWKS = JWKSSource(source) }
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

private struct EnvironmentReader {
    let environment: [String: String]
    init(_ environment: [String: String]) { self.environment = environment }

    /// The value, `nil` when unset or empty; `problem` returns a reason to reject it.
    func string(_ name: String, _ problem: (String) -> String? = { _ in nil }) throws -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        if let reason = problem(value) { throw ConfigurationError(name: name, reason: reason) }
        return value
    }

    /// A comma-separated list; `problem` is asked about each entry.
    func list(_ name: String, _ problem: (String) -> String? = { _ in nil }) throws -> [String] {
        guard let text = try string(name) else { return [] }
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for entry in entries {
            if let reason = problem(entry) { throw ConfigurationError(name: name, reason: reason) }
        }
        return entries
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(name: name, reason: "'\(text)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func statementMode(_ name: String) throws -> PostgresConnection.StatementMode? {
        try string(name) { PostgresConnection.StatementMode(rawValue: $0) == nil ? "expected prepared or unnamed" : nil }
            .flatMap(PostgresConnection.StatementMode.init(rawValue:))
    }

    func boolean(_ name: String) throws -> Bool? {
        guard let text = try string(name) else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError(name: name, reason: "'\(text)' is not true or false")
        }
    }
}
