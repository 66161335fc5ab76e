import App
import Foundation
import HTTPServer
import Market09Client
import TestSupport
import Testing

/// The client library against the real server over real sockets, one test per branch of
/// the app's launch check.
@Suite struct CheckAuthOnLaunchTests {
    /// The application served by the libmicrohttpd transport on a free port.
    struct Served {
        let app: TestApp
        let server: MicroHTTPServer
        var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

        static func start() async throws -> Served {
            let app = try await TestApp.make()
            var configuration = HTTPServerConfiguration()
            configuration.port = 0
            let server = MicroHTTPServer(configuration: configuration, responder: app.responder, logger: app.logs.logger)
            try server.start()
            return Served(app: app, server: server)
        }

        func client(_ store: any TokenStore = InMemoryTokenStore()) -> APIClient {
            APIClient(baseURL: baseURL, store: store, now: app.clock.source)
        }

        func check(_ client: APIClient) async throws -> AuthState {
            try await CheckAuthOnLaunchUseCase(client: client, now: app.clock.source).execute()
        }

        /// Access-log lines for `path`.
        func requests(to path: String) -> Int {
            app.logs.entries(message: "request").filter { $0["path"] as? String == path }.count
        }

        func stop() async {
            await server.shutdown(gracePeriod: .seconds(2))
            await app.close()
        }
    }

    private func userID(of tokens: StoredTokens?) throws -> String {
        let token = try #require(tokens?.accessToken)
        let payload = String(token.split(separator: ".")[1])
        let data = try #require(Base64.decode(payload))
        return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["sub"] as? String)
    }

    @Test func withoutATokenTheAppSignsInAnonymously() async throws {
        let served = try await Served.start()
        let store: any TokenStore = InMemoryTokenStore()

        #expect(try await served.check(served.client(store)) == .anonymous)
        #expect(TokenStatus(try await store.load(), now: served.app.clock.now) == .valid(isAnonymous: true))
        await served.stop()
    }

    @Test func aValidAnonymousTokenStaysAnonymousWithoutANewSignIn() async throws {
        let served = try await Served.start()
        let store: any TokenStore = InMemoryTokenStore()
        try await served.client(store).signInAnonymously()
        let before = try userID(of: try await store.load())

        #expect(try await served.check(served.client(store)) == .anonymous)
        #expect(try userID(of: try await store.load()) == before)
        #expect(served.requests(to: "/v1/auth/anonymous") == 1)
        await served.stop()
    }

    @Test func aValidPermanentTokenIsAuthenticated() async throws {
        let served = try await Served.start()
        _ = try await served.app.send("POST", "/v1/auth/signup", json: ["email": "app@example.com", "password": "app-password", "nickname": "앱"])
        let client = served.client()
        try await client.signIn(email: "app@example.com", password: "app-password")

        guard case .authenticated(let user) = try await served.check(client) else {
            Issue.record("expected authenticated")
            return
        }
        #expect(user.email == "app@example.com")
        #expect(user.nickname == "앱")
        await served.stop()
    }

    @Test func anExpiredAccessTokenIsRefreshedOnceAndStaysSignedIn() async throws {
        let served = try await Served.start()
        _ = try await served.app.send("POST", "/v1/auth/signup", json: ["email": "exp@example.com", "password": "exp-password"])
        let store: any TokenStore = InMemoryTokenStore()
        let client = served.client(store)
        let original = try await client.signIn(email: "exp@example.com", password: "exp-password")
        served.app.clock.advance(by: 3601)

        guard case .authenticated = try await served.check(client) else {
            Issue.record("expected authenticated")
            return
        }
        let renewed = try await store.load()
        #expect(renewed != original)
        #expect(TokenStatus(renewed, now: served.app.clock.now) == .valid(isAnonymous: false))
        #expect(served.requests(to: "/v1/auth/token") == 2)
        await served.stop()
    }

    @Test func concurrentRequestsNeedingARefreshShareOne() async throws {
        let served = try await Served.start()
        let client = served.client()
        try await client.signInAnonymously()
        served.app.clock.advance(by: 3601)

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { try await client.send("GET", "/v1/me").status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 204, count: 6))
        #expect(served.requests(to: "/v1/auth/token") == 1)
        await served.stop()
    }

    @Test func aRevokedAnonymousSessionGetsANewAnonymousOne() async throws {
        let served = try await Served.start()
        let store: any TokenStore = InMemoryTokenStore()
        let client = served.client(store)
        let old = try await client.signInAnonymously()
        #expect(try await served.app.send("POST", "/v1/auth/logout", token: old.accessToken).status == 204)
        served.app.clock.advance(by: 3601)

        #expect(try await served.check(client) == .anonymous)
        let fresh = try await store.load()
        #expect(try userID(of: fresh) != (try userID(of: old)))
        #expect(TokenStatus(fresh, now: served.app.clock.now) == .valid(isAnonymous: true))
        await served.stop()
    }

    @Test func aRevokedPermanentSessionAsksForLoginAndClearsTheStore() async throws {
        let served = try await Served.start()
        _ = try await served.app.send("POST", "/v1/auth/signup", json: ["email": "gone@example.com", "password": "gone-password"])
        let store: any TokenStore = InMemoryTokenStore()
        let client = served.client(store)
        let tokens = try await client.signIn(email: "gone@example.com", password: "gone-password")
        #expect(try await served.app.send("POST", "/v1/auth/logout", token: tokens.accessToken).status == 204)
        served.app.clock.advance(by: 3601)

        #expect(try await served.check(client) == .unauthenticated)
        #expect(try await store.load() == nil)
        await served.stop()
    }

    @Test func anUnreachableServerIsARetryableErrorAndChangesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json")
        let store = FileTokenStore(url: directory)
        let saved = StoredTokens(accessToken: "a.b.c", refreshToken: "r")
        try await store.save(saved)
        // A port nothing listens on: bind one, learn it, close it.
        let descriptor = try RawHTTPClient.connectableFreePort()
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(descriptor)")!, store: store)

        do {
            _ = try await CheckAuthOnLaunchUseCase(client: client).execute()
            Issue.record("expected a network error")
        } catch let error as Market09Error {
            #expect(error.isRetryable)
        }
        #expect(try await store.load() == saved)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Base64url decoding for reading JWT payloads in tests.
enum Base64 {
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
