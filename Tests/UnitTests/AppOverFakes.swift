@testable import App
import Cryptography
import Domain
import Fakes
import Foundation
import HTTPServer
import HTTPTestSupport
import PostgresDriver
import Server

/// The application's routes over in-memory stores, called in process: no socket, no
/// database. The ports a test reaches are ``InMemoryCatalog``'s (posts, likes, feed,
/// influencers, follows); every other stays live over a pool that never connects, so a
/// test that strays into one fails with 503 instead of passing by accident.
struct AppOverFakes {
    static let now = Date(timeIntervalSince1970: 1_796_394_600)
    static let auth = AuthSettings(signingKeys: [AuthSettings.key(secret: "unit-tests-secret-of-at-least-32-bytes!")])
    /// Never connects: connections open lazily.
    static let anonKey = "unit-tests-anon-key"
    static let unusedPool = PostgresPool(.init(url: "postgresql://unused@127.0.0.1:1/unused", size: 1))

    let catalog = InMemoryCatalog()
    let responder: RoutingResponder
    private let codec: AccessTokenCodec

    init() {
        let logger = LogCapture().logger
        var dependencies = Application.Dependencies.live(pool: Self.unusedPool, auth: Self.auth, logger: logger)
        dependencies.categories = InMemoryCategoryRepository(contractCategories.map { Category(id: CategoryID(rawValue: $0.id), name: $0.name) })
        dependencies.readiness = Ready()
        let posts = InMemoryPostRepository(catalog)
        dependencies.posts = posts
        dependencies.likes = posts
        dependencies.feed = InMemoryFeedRepository(catalog)
        dependencies.influencers = InMemoryInfluencerRepository(catalog)
        dependencies.follows = InMemoryFollowRepository(catalog)
        dependencies.revocations = SessionRevocations(feed: nil, tokenLifetime: 3_600, logger: logger)
        dependencies.now = { Self.now }
        codec = AccessTokenCodec(keys: Self.auth.signingKeys, issuer: Self.auth.issuer, audience: Self.auth.audience)
        dependencies.accessTokens = codec
        dependencies.supabase = SupabaseSettings(anonKey: Self.anonKey)
        responder = Application.makeResponder(dependencies: dependencies, auth: Self.auth, cors: CORSPolicy(allowedOrigins: []), logger: logger)
    }

    struct Ready: ReadinessProbe {
        func check() async throws {}
    }

    /// A signed-in caller: its id and bearer token.
    func caller(_ role: Role = .user, anonymous: Bool = false) -> (id: UserID, token: String) {
        let id = UserID(rawValue: UUID())
        let issued = Int(Self.now.timeIntervalSince1970)
        let claims = AccessTokenClaims(iss: codec.issuer, aud: codec.audience, sub: id.rawValue.uuidString.lowercased(),
                                       sid: UUID().uuidString.lowercased(), role: role.rawValue, isAnonymous: anonymous,
                                       iat: issued, exp: issued + 3_600)
        return (id, codec.sign(claims))
    }

    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let json: [String: Any]
        let text: String
        var error: String? { json["error"] as? String }
        var field: String? { json["field"] as? String }
        var items: [[String: Any]] { json["data"] as? [[String: Any]] ?? [] }
    }

    /// Sends a request; `path` may carry a query string.
    func send(_ method: String, _ path: String, json: [String: Any]? = nil, token: String? = nil, headers: [(String, String)] = []) async -> Answer {
        let parts = path.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                query[String(kv[0]).removingPercentEncoding ?? ""] = kv.count == 2 ? (String(kv[1]).removingPercentEncoding ?? "") : ""
            }
        }
        var all = headers
        if let token { all.append(("Authorization", "Bearer " + token)) }
        var body = Data()
        if let json {
            body = (try? JSONSerialization.data(withJSONObject: json)) ?? Data()
            all.append(("Content-Type", "application/json"))
        }
        let response = await responder.respond(to: HTTPRequest(method: method, path: String(parts[0]), query: query, headers: HTTPHeaders(all), body: body))
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return Answer(status: response.status, headers: response.headers, json: object, text: String(decoding: response.body, as: UTF8.self))
    }
}
