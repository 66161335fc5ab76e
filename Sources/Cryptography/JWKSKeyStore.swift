import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
import Workers
#endif

/// Where a provider's JSON Web Key Set comes from.
public enum JWKSSource: Sendable, Equatable {
    /// A local file (tests, or keys mirrored by operations).
    case file(String)
    /// An https URL (e.g. `https://www.googleapis.com/oauth2/v3/certs`).
    case url(URL)

    /// Parses a configuration value: an `https://` URL or a file path.
    public init(_ text: String) {
        if text.hasPrefix("https://"), let url = URL(string: text) { self = .url(url) } else { self = .file(text) }
    }
}

/// A provider's RSA signing keys by `kid`, loaded on first use and reloaded when a token
/// names a key we do not have (providers rotate keys).
///
/// `kid` comes from the client, so a forged token must not cost a fetch: at most one
/// fetch is in flight (concurrent callers await it), and a fetch is *attempted* at most
/// once per `reloadInterval` (60 s), counted from its start, so neither unknown `kid`s
/// nor a provider that is down make every request fetch again.
public final class JWKSKeyStore: Sendable {
    private struct State: Sendable {
        var keys: [String: RSAPublicKey] = [:]
        var lastAttempt: Date?
        var inFlight: Task<[String: RSAPublicKey], any Error>?
    }

    private enum Lookup {
        case found(RSAPublicKey)
        case await(Task<[String: RSAPublicKey], any Error>)
        case missing
    }

    private let reloadInterval: TimeInterval
    private let state = Mutex(State())
    private let fetch: @Sendable () async throws -> Data
    private let now: @Sendable () -> Date

    /// Creates a store over `source`.
    public convenience init(source: JWKSSource, reloadInterval: TimeInterval = 60) {
        self.init(reloadInterval: reloadInterval, now: { Date() }) { try await Self.load(source) }
    }

    /// Creates a store whose key set comes from `fetch` (tests count and delay fetches).
    init(reloadInterval: TimeInterval, now: @escaping @Sendable () -> Date, fetch: @escaping @Sendable () async throws -> Data) {
        self.reloadInterval = reloadInterval
        self.now = now
        self.fetch = fetch
    }

    /// The key `kid`, loading or reloading the set if needed; `nil` when the set lacks it.
    public func key(id kid: String) async throws -> RSAPublicKey? {
        let lookup: Lookup = state.withLock { state in
            if let key = state.keys[kid] { return .found(key) }
            if let task = state.inFlight { return .await(task) }
            let now = now()
            if let last = state.lastAttempt, now.timeIntervalSince(last) < reloadInterval { return .missing }
            state.lastAttempt = now
            let task = Task { [fetch] in try Self.parse(try await fetch()) }
            state.inFlight = task
            return .await(task)
        }
        switch lookup {
        case .found(let key): return key
        case .missing: return nil
        case .await(let task):
            let result = await task.result
            state.withLock { state in
                // The first caller to see the result stores it; later ones (perhaps after a
                // newer fetch) must not put an older set back.
                guard state.inFlight == task else { return }
                state.inFlight = nil
                if case .success(let keys) = result { state.keys = keys }
            }
            return try result.get()[kid]
        }
    }

    private static func load(_ source: JWKSSource) async throws -> Data {
        switch source {
        case .file(let path):
            return try await BlockingWork.run(name: "jwks-file") { try Data(contentsOf: URL(fileURLWithPath: path)) }
        case .url(let url):
            var request = URLRequest(url: url)
            request.timeoutInterval = 5
            let (data, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw URLError(.badServerResponse)
            }
            return data
        }
    }

    static func parse(_ data: Data) throws -> [String: RSAPublicKey] {
        struct KeySet: Decodable { let keys: [Key] }
        struct Key: Decodable { let kty: String; let kid: String?; let n: String?; let e: String?; let use: String? }
        var keys: [String: RSAPublicKey] = [:]
        for key in try JSONDecoder().decode(KeySet.self, from: data).keys where key.kty == "RSA" && key.use != "enc" {
            guard let kid = key.kid, let n = key.n.flatMap(Base64URL.decode), let e = key.e.flatMap(Base64URL.decode) else { continue }
            keys[kid] = try RSAPublicKey(modulus: Array(n), exponent: Array(e))
        }
        return keys
    }
}
