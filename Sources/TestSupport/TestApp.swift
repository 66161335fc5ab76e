import App
import Cryptography
import Domain
import Fakes
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Server

/// The whole application over a private migrated database, called in process, with a
/// clock the test controls, a fast password KDF and a fixed signing key.
public struct TestApp: Sendable {
    public let database: TestDatabase
    /// The clock every use case reads.
    public let clock: TestClock
    /// The dependencies the application was built with.
    public let dependencies: Application.Dependencies
    /// The auth settings the application was built with.
    public let auth: AuthSettings
    /// Everything the application logged.
    public let logs: LogCapture
    /// The request pipeline.
    public let responder: RoutingResponder

    /// The signing secret of test applications.
    public static let secret = "test-secret-0123456789-0123456789-abcdef"
    /// The anon key of test applications' Supabase-compatible surface.
    public static let anonKey = "test-anon-key-0123456789abcdef"

    /// Builds the application; `configure` adjusts auth settings, `idTokens` and
    /// `passwords` replace the ID-token verifier and the password hasher.
    public static func make(
        configure: (inout AuthSettings) -> Void = { _ in },
        idTokens: (any IDTokenVerifier)? = nil,
        passwords: (any PasswordHasher)? = nil,
        clock: TestClock = TestClock(),
        media: MediaSettings = TestApp.media()
    ) async throws -> TestApp {
        let database = try await TestDatabase.migrated()
        var auth = AuthSettings(signingKeys: [AuthSettings.key(secret: secret)])
        auth.passwordIterations = 1_000
        configure(&auth)
        return try await make(database: database, auth: auth, idTokens: idTokens, passwords: passwords, clock: clock, media: media)
    }

    /// A media directory of the test's own, with `limits`; by default the free-space floor
    /// is off (a test machine's disk is not what an upload test measures).
    public static func media(_ adjust: (inout UploadLimits) -> Void = { _ in }) -> MediaSettings {
        var settings = MediaSettings.temporary()
        settings.limits.minimumFreeBytes = 0
        adjust(&settings.limits)
        return settings
    }

    /// A second instance of the same deployment: the same database, settings and clock, its
    /// own memory (rate limiters, revocation cache) and its own pool, as another `market09`
    /// process behind the balancer would have. Close it before this one.
    public func sibling() async throws -> TestApp {
        let pool = PostgresPool(.init(url: database.url, size: 4))
        return try await Self.make(database: TestDatabase(sharing: database, pool: pool), auth: auth, idTokens: nil, passwords: nil, clock: clock)
    }

    /// Runs `body` with a ``sibling()``, closed afterwards whether `body` returns or throws.
    public func withSibling(_ body: (TestApp) async throws -> Void) async throws {
        let sibling = try await sibling()
        do {
            try await body(sibling)
            await sibling.close()
        } catch {
            await sibling.close()
            throw error
        }
    }

    /// The application over a migrated database of a test's own cluster (closing the app
    /// leaves the database), reading from `replicas` with read-your-writes remembered for 30 s
    /// (long enough for a loaded test run to read back before it is forgotten).
    public static func make(primary url: String, replicas: ReadReplicas, clock: TestClock = TestClock()) async throws -> TestApp {
        var auth = AuthSettings(signingKeys: [AuthSettings.key(secret: secret)])
        auth.passwordIterations = 1_000
        let database = TestDatabase(name: "", url: url, pool: replicas.primary, owner: false)
        return try await make(database: database, auth: auth, idTokens: nil, passwords: nil, clock: clock,
                              replicas: replicas, readYourWrites: ReadYourWrites(replicas: replicas, window: .seconds(30)))
    }

    /// The application over an already migrated database reached through `pool` (a pooler,
    /// say); closing the app leaves the database and the pool.
    public static func make(over url: String, pool: PostgresPool, clock: TestClock = TestClock()) async throws -> TestApp {
        var auth = AuthSettings(signingKeys: [AuthSettings.key(secret: secret)])
        auth.passwordIterations = 1_000
        return try await make(database: TestDatabase(name: "", url: url, pool: pool, owner: false), auth: auth, idTokens: nil, passwords: nil,
                              clock: clock)
    }

    private static func make(database: TestDatabase, auth: AuthSettings, idTokens: (any IDTokenVerifier)?, passwords: (any PasswordHasher)?,
                             clock: TestClock, replicas: ReadReplicas? = nil, readYourWrites: ReadYourWrites? = nil,
                             media: MediaSettings = TestApp.media()) async throws -> TestApp {
        let logs = LogCapture()
        var dependencies = Application.Dependencies.live(pool: database.pool, reads: replicas, auth: auth, media: media, logger: logs.logger)
        dependencies.now = clock.source
        dependencies.passwords = passwords ?? PBKDF2PasswordHasher(iterations: auth.passwordIterations, workers: auth.passwordWorkers())
        if let idTokens { dependencies.idTokens = idTokens }
        dependencies.supabase = SupabaseSettings(anonKey: anonKey)
        dependencies.console = PostgresConsoleStore(pool: database.pool)
        try await dependencies.revocations.start()
        let responder = Application.makeResponder(dependencies: dependencies, auth: auth, cors: CORSPolicy(allowedOrigins: []), logger: logs.logger,
                                                  readYourWrites: readYourWrites)
        return TestApp(database: database, clock: clock, dependencies: dependencies, auth: auth, logs: logs, responder: responder)
    }

    /// Sends a request; `json` is encoded as the body (or `body` sent as it is), `token`
    /// as the bearer.
    public func send(
        _ method: String, _ path: String, json: [String: any Sendable]? = nil, body raw: Data? = nil, token: String? = nil,
        headers: [(String, String)] = [], remoteAddress: String = "203.0.113.7"
    ) async throws -> TestResponse {
        var fields = HTTPHeaders(headers)
        if let token { fields.add("Authorization", "Bearer \(token)") }
        var body = raw ?? Data()
        if let json {
            // Sorted keys: the same dictionary is the same bytes on every send (a retry is).
            body = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            fields.add("Content-Type", "application/json")
        }
        // Split and decode the query string as the transport does.
        let components = URLComponents(string: path)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let request = HTTPRequest(method: method, path: components?.path ?? path, query: query, headers: fields, body: body, remoteAddress: remoteAddress)
        let response = await responder.respond(to: request)
        return TestResponse(response: response)
    }

    /// Stops background work, drops the database and removes stored uploads.
    public func close() async {
        await dependencies.revocations.stop()
        await database.drop()
        try? FileManager.default.removeItem(atPath: dependencies.mediaSettings.directory)
    }
}

/// A response with JSON helpers.
public struct TestResponse: Sendable {
    /// The raw response.
    public let response: HTTPResponse

    public init(response: HTTPResponse) {
        self.response = response
    }

    public var status: Int { response.status }
    /// The body as text.
    public var text: String { String(decoding: response.body, as: UTF8.self) }
    /// The body as a JSON object (empty when it is not one).
    public var json: [String: any Sendable] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: any Sendable]) ?? [:]
    }
    /// The `error` code of an error body.
    public var errorCode: String? { json["error"] as? String }
    /// A header value.
    public func header(_ name: String) -> String? { response.headers[name] }
}

/// A session as the API returned it.
public struct TestSession: Sendable {
    public let accessToken: String
    public let refreshToken: String
    public let userID: String

    /// Reads a session response; fails the test through a thrown error otherwise.
    public init(_ response: TestResponse) throws {
        guard let access = response.json["access_token"] as? String, let refresh = response.json["refresh_token"] as? String,
              let user = response.json["user"] as? [String: any Sendable], let id = user["id"] as? String
        else { throw TestEnvironmentError("not a session response (\(response.status)): \(response.text)") }
        accessToken = access
        refreshToken = refresh
        userID = id
    }
}

extension TestApp {
    /// Inserts a user straight into the database and returns an access token for it (a
    /// session row is not needed: tokens are verified by signature and revocation list).
    public func user(anonymous: Bool = false, role: String = "user") async throws -> (id: UUID, token: String) {
        let id = UUID()
        try await database.pool.withConnection { connection in
            try connection.execute("INSERT INTO users (id, is_anonymous, role) VALUES (\(id), \(anonymous), \(role))")
        }
        return (id, token(for: id, anonymous: anonymous, role: role))
    }

    /// An access token of a new session (`sid`) for an existing user.
    public func token(for id: UUID, anonymous: Bool = false, role: String = "user") -> String {
        let now = Int(clock.now.timeIntervalSince1970)
        let claims = AccessTokenClaims(iss: auth.issuer, aud: auth.audience, sub: id.uuidString.lowercased(), sid: UUID().uuidString.lowercased(),
                                       role: role, isAnonymous: anonymous, iat: now, exp: now + auth.accessTokenLifetime)
        return AccessTokenCodec(keys: auth.signingKeys, issuer: auth.issuer, audience: auth.audience).sign(claims)
    }

    /// Runs `body` with this application served by the libmicrohttpd engine on a free
    /// port (what goes over the wire: lengths, HEAD), stopping the engine afterwards.
    public func serving(_ body: (Int) async throws -> Void) async throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.spoolDirectory = NSTemporaryDirectory()
        let server = MicroHTTPServer(configuration: configuration, responder: responder, logger: logs.logger)
        try server.start()
        do {
            try await body(server.port)
        } catch {
            await server.shutdown(gracePeriod: .seconds(1))
            throw error
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Inserts a post straight into the database (no posting rules) and returns its id.
    public func post(influencer: Int, name: String, start: String, end: String, postedAt: String = "2026-11-01T00:00:00Z",
                     submittedBy: UUID? = nil) async throws -> Int {
        try await database.pool.withConnection { connection in
            try connection.query("""
                INSERT INTO posts (influencer_id, product_name, price, category_id, group_buying_start, group_buying_end, posted_at, submitted_by)
                VALUES (\(influencer), \(name), 1000, 'food', \(start)::timestamptz, \(end)::timestamptz, \(postedAt)::timestamptz, \(submittedBy)) RETURNING id
                """).single().decode(0)
        }
    }

    /// Waits (at most 30 s) until the default feed answers: a test that inserts thousands of
    /// open posts at once may ask before the day's order of them is built, which a request
    /// helps build for only a second before answering 503 `starting` (a parallel run met it).
    public func waitForFeed(token: String) async throws {
        for _ in 0..<120 where try await send("GET", "/v1/posts?limit=1", token: token).status == 503 {
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Inserts an influencer and returns its id.
    public func influencer(_ username: String, fullName: String? = nil) async throws -> Int {
        try await database.pool.withConnection { connection in
            try connection.query("INSERT INTO influencers (username, full_name, profile_pic_url) VALUES (\(username), \(fullName), 'https://img.example/p.jpg') RETURNING id").single().decode(0)
        }
    }
}

/// Runs `body` with a fresh application over its own database, and tears both down
/// afterwards whether `body` returns or throws (a failing `try` must not leave them behind).
public func withTestApp(
    configure: (inout AuthSettings) -> Void = { _ in },
    idTokens: (any IDTokenVerifier)? = nil,
    passwords: (any PasswordHasher)? = nil,
    clock: TestClock = TestClock(),
    media: MediaSettings = TestApp.media(),
    _ body: (TestApp) async throws -> Void
) async throws {
    let app = try await TestApp.make(configure: configure, idTokens: idTokens, passwords: passwords, clock: clock, media: media)
    do {
        try await body(app)
        await app.close()
    } catch {
        await app.close()
        throw error
    }
}

/// Auth settings signing with ``TestApp/secret``, for responders built by hand.
public let testAuth = AuthSettings(signingKeys: [AuthSettings.key(secret: TestApp.secret)])
