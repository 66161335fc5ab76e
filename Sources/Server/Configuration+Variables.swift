import App
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver

extension Configuration {
    /// A field of a configuration a variable sets.
    typealias Field<Value> = any WritableKeyPath<Configuration, Value> & Sendable

    /// One environment variable, declared once: its name, what it controls, how it is read
    /// into a ``Configuration``, and its default as `--help` and docs/configuration.md show
    /// it (taken from ``Configuration/init()`` itself where the default is a value, so the
    /// text cannot drift from the code).
    public struct Variable: Sendable {
        /// The variable's name.
        public let name: String
        /// Its default, as text.
        public let defaultValue: String
        /// What it controls.
        public let summary: String
        /// Reads it (when set) into a configuration.
        let apply: @Sendable (EnvironmentReader, inout Configuration) throws -> Void

        init(_ name: String, _ defaultValue: String, _ summary: String,
             apply: @escaping @Sendable (EnvironmentReader, inout Configuration) throws -> Void) {
            self.name = name
            self.defaultValue = defaultValue
            self.summary = summary
            self.apply = apply
        }

        /// Text the variable needs no reading for here (another part of the program reads it).
        static func readElsewhere(_ name: String, _ defaultValue: String, _ summary: String) -> Variable {
            Variable(name, defaultValue, summary) { _, _ in }
        }

        static func integer(_ name: String, in range: ClosedRange<Int>, _ path: Field<Int>,
                            _ summary: String, default text: String? = nil) -> Variable {
            Variable(name, text ?? String(Configuration()[keyPath: path]), summary) { reader, configuration in
                if let value = try reader.integer(name, in: range) { configuration[keyPath: path] = value }
            }
        }

        static func boolean(_ name: String, _ path: Field<Bool>, _ summary: String) -> Variable {
            Variable(name, String(Configuration()[keyPath: path]), summary) { reader, configuration in
                if let value = try reader.boolean(name) { configuration[keyPath: path] = value }
            }
        }

        static func string(_ name: String, _ path: Field<String>, _ summary: String,
                           problem: @escaping @Sendable (String) -> String? = { _ in nil }) -> Variable {
            Variable(name, Configuration()[keyPath: path], summary) { reader, configuration in
                if let value = try reader.string(name, problem) { configuration[keyPath: path] = value }
            }
        }

        static func optional(_ name: String, _ path: Field<String?>, default text: String, _ summary: String,
                             problem: @escaping @Sendable (String) -> String? = { _ in nil }) -> Variable {
            Variable(name, text, summary) { reader, configuration in
                configuration[keyPath: path] = try reader.string(name, problem)
            }
        }

        static func list(_ name: String, _ path: Field<[String]>, _ summary: String,
                         problem: @escaping @Sendable (String) -> String? = { _ in nil }) -> Variable {
            Variable(name, "(none)", summary) { reader, configuration in
                configuration[keyPath: path] = try reader.list(name, problem)
            }
        }

        /// A rate limit: `count` per `seconds`.
        static func rate(_ name: String, per seconds: TimeInterval, _ path: Field<RateLimiter.Limit>,
                         _ summary: String) -> Variable {
            Variable(name, String(Configuration()[keyPath: path].count), summary) { reader, configuration in
                if let count = try reader.integer(name, in: 1...1_000_000) { configuration[keyPath: path] = .init(count: count, per: seconds) }
            }
        }
    }

    static let address: @Sendable (String) -> String? = { ListeningSocket.isAddress($0) ? nil : "expected an IPv4 or IPv6 address" }
    private static let postgresURL: @Sendable (String) -> String? = {
        $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") || $0.contains("=") ? nil : "expected a postgres:// URL"
    }
    private static let httpURL: @Sendable (String) -> String? = { $0.hasPrefix("https://") || $0.hasPrefix("http://") ? nil : "expected an http(s) URL" }

    /// Every variable `serve` reads, in the order `--help` and docs/configuration.md list them.
    public static let variables: [Variable] = database + backups + http + operation + consoleVariables + media + influencers + auth

    private static let database: [Variable] = [
        .optional("DATABASE_URL", \.databaseURL, default: "(embedded)",
                  "PostgreSQL URL (postgres://user:pass@host:port/db). Unset: a private cluster under MARKET09_DATA_DIR.", problem: postgresURL),
        .string("MARKET09_DATA_DIR", \.dataDirectory, "Directory of the embedded PostgreSQL cluster."),
        .string("HOST", \.http.host, "IPv4 or IPv6 address to listen on (0.0.0.0 in containers).", problem: address),
        .integer("PORT", in: 0...65535, \.http.port, "TCP port; 0 picks a free one (logged at start)."),
        .integer("HTTP_THREADS", in: 1...64, \.http.threads, "HTTP engine threads (1–64)."),
        .integer("DATABASE_POOL_SIZE", in: 1...100, \.poolSize, "PostgreSQL connections (1–100)."),
        Variable("DATABASE_STATEMENTS", Configuration().statementMode.rawValue,
                 "prepared, or unnamed through PgBouncer in transaction mode (session settings then from the role).") { reader, configuration in
            configuration.statementMode = try reader.statementMode("DATABASE_STATEMENTS") ?? configuration.statementMode
        },
        Variable("DATABASE_READ_URLS", "(none)", "Streaming replicas for reads, space-separated URLs (each with DATABASE_POOL_SIZE connections).") { reader, configuration in
            configuration.readURLs = try reader.string("DATABASE_READ_URLS") { text in
                text.split(separator: " ").allSatisfy { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") } ? nil : "expected postgres:// URLs separated by spaces"
            }.map { $0.split(separator: " ").map(String.init) } ?? []
        },
        Variable("DATABASE_READ_STATEMENTS", "(DATABASE_STATEMENTS)", "prepared or unnamed, for the replicas alone (PgBouncer in front of the primary only).") { reader, configuration in
            configuration.readStatementMode = try reader.statementMode("DATABASE_READ_STATEMENTS")
        },
        .integer("REPLICA_MAX_LAG_MS", in: 100...600_000, \.replicaMaxLagMilliseconds,
                 "A replica further behind the primary than this is skipped until it catches up."),
        .integer("STATEMENT_TIMEOUT_MS", in: 100...600_000, \.statementTimeoutMilliseconds,
                 "Longest a request's statement may run; then 503 query_timeout (100–600000)."),
        .readElsewhere("PG_BIN_DIR", "(found)", "PostgreSQL server binaries for the embedded cluster."),
    ]

    private static let backups: [Variable] = [
        .boolean("BACKUPS", \.backupsEnabled,
                 "Back up the embedded database with pgBackRest: WAL archived continuously, full and differential backups (true/false)."),
        .optional("BACKUP_DIR", \.backupDirectory, default: "(data dir)/backups",
                  "The embedded database's backup repository (and media copy); on the same disk it guards against mistakes, not a lost disk."),
        .integer("BACKUP_FULL_EVERY_HOURS", in: 1...8760, \.backupFullEveryHours, "Hours between full backups."),
        .integer("BACKUP_DIFFERENTIAL_EVERY_HOURS", in: 1...8760, \.backupDifferentialEveryHours, "Hours between differential backups (what changed since the full one)."),
        .integer("BACKUP_RETAIN_FULL", in: 1...1000, \.backupRetainFull, "Full backups kept (with the differentials and WAL they need)."),
        Variable("BACKUP_RETAIN_DAYS", "(by count)", "Keep full backups this many days instead of BACKUP_RETAIN_FULL of them.") { reader, configuration in
            configuration.backupRetainDays = try reader.integer("BACKUP_RETAIN_DAYS", in: 1...3650)
        },
        .integer("BACKUP_ARCHIVE_TIMEOUT_SECONDS", in: 1...3600, \.backupArchiveTimeoutSeconds,
                 "Most seconds between a write and its WAL's archiving: what a lost disk can cost."),
        .readElsewhere("PGBACKREST_CONFIG", "(none)",
                       "A deployment's pgBackRest configuration file: backup, restore and backup run use its repository, not the embedded one's."),
        .readElsewhere("PGBACKREST_STANZA", "market09",
                       "A deployment's stanza; with it (or PGBACKREST_CONFIG) the other PGBACKREST_* variables configure the tool (docker-compose.yml)."),
        .readElsewhere("BACKUP_MEDIA_MIRROR", "(repository)/media",
                       "On a deployment's backup host: where the media store is copied, and restored from."),
    ]

    private static let http: [Variable] = [
        .integer("MAX_BODY_BYTES", in: 1...(1 << 30), \.http.maxBodyBytes, "Largest request body; larger gets 413."),
        .integer("MAX_HEADER_BYTES", in: 1024...(1 << 20), \.http.maxHeaderBytes, "Largest total header size; larger gets 431."),
        .integer("MAX_URL_BYTES", in: 256...(1 << 20), \.http.maxURLBytes, "Longest request target; longer gets 414."),
        .integer("IDLE_TIMEOUT_SECONDS", in: 1...3600, \.http.idleTimeoutSeconds, "Idle keep-alive connections close after this."),
        .integer("MAX_CONNECTIONS", in: 1...100_000, \.http.maxConnections, "Simultaneous connections."),
        .integer("HEADER_TIMEOUT_SECONDS", in: 1...600, \.http.headerTimeoutSeconds,
                 "Total seconds a request head may take, however steadily it trickles (1–600)."),
        .integer("BODY_TIMEOUT_SECONDS", in: 1...3600, \.http.bodyTimeoutSeconds, "Total seconds a request body may take once its head arrived (1–3600)."),
        .integer("MAX_CONNECTIONS_PER_ADDRESS", in: 0...100_000, \.http.maxConnectionsPerAddress,
                 "Simultaneous connections from one client address (0: no cap; use 0 behind a proxy)."),
    ]

    private static let operation: [Variable] = [
        .integer("SHUTDOWN_GRACE_SECONDS", in: 0...3600, \.shutdownGraceSeconds, "Time in-flight requests get on SIGTERM/SIGINT."),
        .integer("JOB_LEASE_SECONDS", in: 2...600, \.jobLeaseSeconds, "Lease of the one instance running background jobs (renewed every third)."),
        .list("CORS_ALLOWED_ORIGINS", \.corsAllowedOrigins, "Comma-separated origins, or *; unset disables CORS."),
        .integer("GZIP_LEVEL", in: 0...9, \.gzipLevel,
                 "zlib level (1–9) for JSON answers of 1 KB or more to clients accepting gzip; 0: off (a proxy compresses)."),
        .boolean("METRICS", \.metricsEnabled, "Serve GET /metrics in Prometheus' text format (true/false), on a listener of its own."),
        .string("METRICS_HOST", \.metricsHost,
                "Address of the metrics listener (never the API's port; 0.0.0.0 in a container scraped from its network).", problem: address),
        Variable("METRICS_PORT", String(defaultMetricsPort), "Port of the metrics listener (0: any free one; 0 too when PORT is 0).") { reader, configuration in
            configuration.metricsPort = try reader.integer("METRICS_PORT", in: 0...65535)
        },
        .optional("METRICS_TOKEN", \.metricsToken, default: "(none)",
                  "Bearer token scrapes must send (at least 16 characters); set it when others can reach METRICS_HOST.") {
            $0.utf8.count >= 16 && !$0.contains(" ") ? nil : "expected at least 16 characters without spaces"
        },
        .optional("OPENAPI_PATH", \.openAPIPath, default: "(found)",
                  "The contract served at /openapi.yaml, /openapi.json and /docs; default: openapi.yaml beside the executable or a parent."),
        .optional("DOCS_ASSETS_URL", \.docsAssetsURL, default: "(jsDelivr)",
                  "Base URL of swagger-ui.css and swagger-ui-bundle.js for /docs (default: swagger-ui-dist 5.17.14 on jsDelivr, pinned by hash).") {
            $0.hasPrefix("https://") || $0.hasPrefix("http://") || $0.hasPrefix("/") ? nil : "expected an http(s) URL or an absolute path"
        },
        Variable("DOCS_ASSETS_INTEGRITY", "(pinned)",
                 "With DOCS_ASSETS_URL: the two files' SRI hashes, CSS's then the script's, space-separated (sha384-…).") { reader, configuration in
            configuration.docsAssetsIntegrity = try reader.string("DOCS_ASSETS_INTEGRITY")?.split(separator: " ").map(String.init) ?? []
        },
        .optional("DOCS_ASSETS_DIR", \.docsAssetsDirectory, default: "(none)",
                  "A local directory with those two files, served under /docs/assets/ (offline use)."),
    ]

    private static let media: [Variable] = [
        .optional("MEDIA_DIR", \.mediaDirectory, default: "(data dir)/media", "Where uploaded images are stored (content-addressed files)."),
        .optional("MEDIA_BASE_URL", \.mediaBaseURL, default: "http://HOST:PORT",
                  "Public base URL of /media/ in upload answers, e.g. https://api.09market.kr.") {
            httpURL($0) == nil && !$0.hasSuffix("/") ? nil : "expected an http(s) URL without a trailing /"
        },
        .integer("MAX_UPLOAD_BYTES", in: 1024...(1 << 30), \.maxUploadBytes, "Largest uploaded file; larger gets 413 file_too_large."),
        .integer("UPLOADS_PER_HOUR", in: 1...1_000_000, \.uploadLimits.perHour, "Uploads per account per hour; more get 429 upload_rate_limited."),
        .integer("UPLOAD_BYTES_PER_DAY", in: 1024...(1 << 41), \.uploadLimits.bytesPerDay,
                 "Bytes per account per 24 hours (as declared); more get 429 upload_quota_exceeded."),
        .integer("UPLOAD_MIN_FREE_BYTES", in: 0...(1 << 50), \.uploadLimits.minimumFreeBytes,
                 "Free space the media disk keeps; below it uploads get 507 before a byte is written."),
        .integer("UPLOAD_MAX_UNREFERENCED_BYTES", in: 0...(1 << 50), \.uploadLimits.maximumUnreferencedBytes,
                 "Bytes of uploads no post or profile refers to yet, in all; beyond it uploads get 507."),
    ]

    private static let influencers: [Variable] = [
        Variable("PROFILE_LOOKUP_URL", "(none)",
                 "Instagram profile lookup checking influencer requests (docs/api.md); unset: requests wait for an admin.") { reader, configuration in
            configuration.profileLookupURL = try reader.string("PROFILE_LOOKUP_URL", httpURL).flatMap(URL.init(string:))
        },
        .optional("PROFILE_LOOKUP_TOKEN", \.profileLookupToken, default: "(none)", "Bearer token sent to the profile lookup."),
        .optional("SUPABASE_ANON_KEY", \.supabaseAnonKey, default: "(none)",
                  "Mounts /auth/v1, /functions/v1 and /rest/v1 for the unmodified 09Market app; requests must carry it as apikey.") {
            $0.utf8.count >= 16 ? nil : "expected at least 16 characters"
        },
        .integer("INFLUENCER_MIN_FOLLOWERS", in: 0...1_000_000_000, \.verificationRules.minimumFollowers, "Followers a requested influencer needs."),
        .boolean("INFLUENCER_REQUIRE_PUBLIC", \.verificationRules.requirePublic, "Refuse private accounts (true/false)."),
        .boolean("INFLUENCER_REQUIRE_EXTERNAL_URL", \.verificationRules.requireExternalURL, "Refuse profiles without an external URL (true/false)."),
        .integer("INFLUENCER_REQUEST_RETRY_AFTER_SECONDS", in: 0...(365 * 86_400), \.influencerRequestRetryAfterSeconds,
                 "A failed request for a name stands this long; then anyone may request it again (admins: retry)."),
        .integer("INGEST_REQUESTS_PER_MINUTE", in: 1...100_000, \.ingestRequestsPerMinute,
                 "/v1/ingest calls per service API key per minute (up to 1,000 rows each); more get 429 rate_limited."),
        .boolean("MIGRATE_ON_START", \.migrateOnStart, "Apply pending migrations before serving (true/false)."),
        .readElsewhere("MIGRATIONS_DIR", "(found)", "SQL migrations; default: migrations/ beside the executable or a parent."),
        Variable("LOG_LEVEL", Configuration().logLevel.name, "debug, info, warning or error.") { reader, configuration in
            guard let text = try reader.string("LOG_LEVEL") else { return }
            guard let level = Logger.Level(name: text) else { throw ConfigurationError(name: "LOG_LEVEL", reason: "'\(text)' is not debug, info, warning or error") }
            configuration.logLevel = level
        },
    ]
}

extension Configuration {
    /// The variables most deployments set: the README's table.
    public static let essentials = ["DATABASE_URL", "JWT_SECRET", "HOST", "PORT", "MEDIA_DIR", "MEDIA_BASE_URL", "TRUSTED_PROXIES", "SUPABASE_ANON_KEY",
                                    "GOOGLE_CLIENT_IDS", "APPLE_CLIENT_IDS", "DATABASE_READ_URLS", "METRICS_HOST", "METRICS_PORT", "LOG_LEVEL"]

    /// `variables` as a Markdown table: docs/configuration.md holds it for all of them and
    /// the README for ``essentials``, both exactly as written here (DocumentationTests).
    public static func markdownTable(_ variables: [Variable] = variables) -> String {
        let rows = variables.map { variable in
            let value = variable.defaultValue.hasPrefix("(") ? variable.defaultValue : "`\(variable.defaultValue)`"
            return "| `\(variable.name)` | \(value) | \(variable.summary.replacingOccurrences(of: "|", with: "\\|")) |"
        }
        return (["| Variable | Default | Meaning |", "|---|---|---|"] + rows).joined(separator: "\n") + "\n"
    }
}
