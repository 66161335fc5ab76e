import App
import Codecs
import Cryptography
import Domain
import Foundation
import HTTPServer
import Persistence
import Workers

/// `market09 admin <task>`: operator maintenance.
enum AdminCommand {
    static let help = """
        Usage: market09 admin <task> [options] [--database-url URL]

        Tasks:
          create-user --email E --password-stdin [--admin] [--nickname N]
                                  Create a permanent user; the password is read from stdin.
          grant-admin <email|user-id>   Make a permanent user an admin.
          revoke-admin <email|user-id>  Make an admin an ordinary user.
          list-admins             List admins.
          stats                   Users, sessions, influencers, posts per category and status, likes.
          prune-anonymous --older-than DURATION [--dry-run] [--batch-size N]
                                  Delete anonymous users created more than DURATION ago (30d, 12h,
                                  90m) with no live session refreshed within it, in batches of N
                                  (default 500) of short SKIP LOCKED transactions.
          influencer-requests list [--status S] [--limit N]
                                  Requests to add influencers, newest first.
          influencer-requests approve <id|username> [--full-name N] [--followers N] [--biography B]
                                  [--profile-pic-url U] [--external-url U]
                                  Create the influencer from these fields and approve the request.
          influencer-requests reject <id|username> [--reason R]
                                  Fail the request (reason: rejected unless given).
          influencer-requests retry <id|username>
                                  Open a request again for the lookup, attempts from zero.
          api-keys create --name NAME --scope ingest
                                  Make a service API key (for /v1/ingest); printed once.
          api-keys list           Keys with their scope, state and last use (never the key).
          api-keys revoke <name|id>
                                  Refuse the key from now on.
          prune-uploads           Remove uploads no post or profile has referred to for 24 hours
                                  (MEDIA_DIR as the server's; the server does it every 10 minutes).
          audit [--search TEXT] [--limit N] [--before ID]
                                  The audit log of admin actions (console, CLI, admin API), newest first.

        Changes made here are recorded in the audit log as cli:<your user name>.
        The operators' console: /admin on the server (docs/operations.md, "The operators' console").

        Related: market09 migrate [--dry-run] applies or lists database migrations.
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        let (task, rest): (String, [String])
        switch CommandLineInterface.task(arguments, help: help) {
        case .failure(let exit): return exit.code
        case .success(let parsed): (task, rest) = (parsed.name, parsed.arguments)
        }
        switch task {
        case "create-user": return try await createUser(rest, environment)
        case "grant-admin", "revoke-admin": return try await setRole(task == "grant-admin" ? .admin : .user, rest, environment)
        case "list-admins": return try await listAdmins(rest, environment)
        case "stats": return try await stats(rest, environment)
        case "prune-anonymous": return try await pruneAnonymous(rest, environment)
        case "prune-uploads": return try await pruneUploads(rest, environment)
        case "influencer-requests": return try await influencerRequests(rest, environment)
        case "api-keys": return try await apiKeys(rest, environment)
        case "audit": return try await audit(rest, environment)
        default: throw UsageError("unknown admin task '\(task)'; run 'market09 admin --help'")
        }
    }

    private static func createUser(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: ["password-stdin", "admin"], options: ["email", "nickname", "database-url"])
        _ = try parsed.positionals()
        guard let email = parsed.option("email") else { throw UsageError("--email is required") }
        guard parsed.flag("password-stdin") else { throw UsageError("--password-stdin is required (passwords never go on the command line)") }
        let password = try await BlockingWork.run(name: "stdin") { readLine(strippingNewline: true) ?? "" }
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let authentication = Authentication(
                users: PostgresUserRepository(pool: pool), sessions: PostgresSessionRepository(pool: pool), passwords: PBKDF2PasswordHasher(),
                attempts: AuthRateLimits(settings: AuthSettings(), counters: nil, now: { Date() }).passwordAttempts,
                refreshTokens: HMACRefreshTokenFactory(key: CryptoPrimitives.randomBytes(32)),
                idTokens: OIDCIDTokenVerifier(providers: [:], now: { Date() }), now: { Date() }, newID: { UUID() })
            let session = try await authentication.signUp(email: email, password: password, nickname: parsed.option("nickname"))
            // The sign-up session is not handed to anyone: end it at once.
            try await PostgresSessionRepository(pool: pool).revoke(id: session.sessionID, reason: .logout, now: Date())
            if parsed.flag("admin") { _ = try await PostgresConsoleStore(pool: pool).setRole(.admin, user: session.user.id.description, by: actor(environment)) }
            try await PostgresConsoleStore(pool: pool).record(actor(environment), action: "user.create", target: "user \(session.user.id)",
                                                              after: "{\"email\": \(JSONText.quoted(session.user.email ?? email))}")
            CommandLineInterface.printLine("created \(parsed.flag("admin") ? "admin" : "user") \(session.user.id) <\(session.user.email ?? email)>")
            return 0
        }
    }

    private static func setRole(_ role: Role, _ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["database-url"])
        let user = try parsed.positionals("<email|user-id>")[0]
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            guard try await PostgresConsoleStore(pool: pool).setRole(role, user: user, by: actor(environment)) != nil else {
                CommandLineInterface.printError("market09: error: no permanent user \(user)")
                return 1
            }
            CommandLineInterface.printLine("\(user) is now \(role == .admin ? "an admin" : "an ordinary user")")
            return 0
        }
    }

    private static func listAdmins(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["database-url"])
        _ = try parsed.positionals()
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let admins = try await PostgresAdministration(pool: pool).admins()
            if admins.isEmpty { CommandLineInterface.printLine("no admins") }
            for admin in admins {
                CommandLineInterface.printLine("\(admin.id.lowercasedText)  \(admin.email ?? "-")  since \(admin.createdAt.formatted(.iso8601))")
            }
            return 0
        }
    }

    private static func stats(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["database-url"])
        _ = try parsed.positionals()
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            for (label, value) in try await PostgresAdministration(pool: pool).stats(now: Date()) {
                CommandLineInterface.printLine("\(label) \(value)")
            }
            return 0
        }
    }

    private static func pruneAnonymous(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: ["dry-run"], options: ["older-than", "batch-size", "database-url"])
        _ = try parsed.positionals()
        guard let text = parsed.option("older-than") else { throw UsageError("--older-than is required") }
        guard let olderThan = parseDuration(text) else { throw UsageError("--older-than needs a duration such as 30d, 12h, 90m") }
        let batchSize = try parsed.integer("batch-size", in: 1...10_000, default: 500)
        let cutoff = Date().addingTimeInterval(-olderThan)
        let since = cutoff.formatted(.iso8601)
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let pruner = PostgresAnonymousUserPruner(pool: pool)
            if parsed.flag("dry-run") {
                CommandLineInterface.printLine("would delete \(try await pruner.count(inactiveSince: cutoff)) anonymous users inactive since \(since)")
            } else {
                let progress = ProgressReporter(label: "prune-anonymous", total: try await pruner.count(inactiveSince: cutoff), unit: "users")
                let (deleted, batches) = try await pruner.prune(inactiveSince: cutoff, batchSize: batchSize) { progress.update($0) }
                progress.finish()
                try await PostgresConsoleStore(pool: pool).record(actor(environment), action: "users.prune_anonymous", target: "anonymous users",
                                                                  after: "{\"deleted\": \(deleted), \"inactive_since\": \(JSONText.quoted(since))}")
                CommandLineInterface.printLine("deleted \(deleted) anonymous users inactive since \(since) in \(batches) batches")
            }
            return 0
        }
    }

    /// Removes uploads nothing has referred to for 24 hours, as the server's job does.
    private static func pruneUploads(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: [], options: ["database-url"])
        _ = try parsed.positionals()
        let configuration = try Configuration.fromEnvironment(environment)
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let workers = BoundedWorkers(name: "media", threads: 1, queueLimit: 1)
            let library = FileMediaLibrary(directory: configuration.media.directory, pool: pool, workers: workers, readers: workers)
            let removed = try await Uploads(library: library, now: { Date() }).prune()
            try await PostgresConsoleStore(pool: pool).record(actor(environment), action: "uploads.prune", target: "uploads",
                                                              after: "{\"removed\": \(removed.count)}")
            CommandLineInterface.printLine("removed \(removed.count) uploads unreferenced for 24 hours")
            return 0
        }
    }

    /// JSON string literals for audit entries' `after`.
    enum JSONText {
        static func quoted(_ text: String) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: [text], options: [])) ?? Data("[\"\"]".utf8), as: UTF8.self)
                .dropFirst().dropLast().description
        }
    }

    /// Who runs the CLI, as the audit log names them.
    static func actor(_ environment: [String: String]) -> AdminActor {
        AdminActor.cli(environment["SUDO_USER"] ?? environment["USER"] ?? environment["LOGNAME"] ?? "")
    }

    private static func audit(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["search", "limit", "before", "database-url"])
        _ = try parsed.positionals()
        let query = AuditQuery(search: parsed.option("search"), beforeID: try parsed.option("before").map { text in
            guard let id = Int(text), id > 0 else { throw UsageError("--before takes an entry id") }
            return id
        }, limit: try parsed.integer("limit", in: 1...10_000, default: 100))
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let entries = try await PostgresConsoleStore(pool: pool).audit(query)
            if entries.isEmpty { CommandLineInterface.printLine("no audit entries") }
            for entry in entries {
                CommandLineInterface.printLine("\(entry.id)  \(entry.at.formatted(.iso8601))  \(entry.actor)  \(entry.channel.rawValue)  \(entry.address ?? "-")  "
                                               + "\(entry.action)  \(entry.target)  before=\(entry.before ?? "null")  after=\(entry.after ?? "null")")
            }
            return 0
        }
    }

    /// `30d`, `12h`, `90m`, `45s` → seconds.
    static func parseDuration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let amount = Int(text.dropLast()), amount > 0 else { return nil }
        switch unit {
        case "d": return TimeInterval(amount) * 86_400
        case "h": return TimeInterval(amount) * 3600
        case "m": return TimeInterval(amount) * 60
        case "s": return TimeInterval(amount)
        default: return nil
        }
    }
}
