import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
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
/// names a key we do not have (providers rotate keys), at most once per `reloadInterval`.
public final class JWKSKeyStore: Sendable {
    private struct State: Sendable {
        var keys: [String: RSAPublicKey] = [:]
        var lastLoad: Date?
    }

    private let source: JWKSSource
    private let reloadInterval: TimeInterval
    private let state = Mutex(State())

    /// Creates a store over `source`.
    public init(source: JWKSSource, reloadInterval: TimeInterval = 30) {
        self.source = source
        self.reloadInterval = reloadInterval
    }

    /// The key `kid`, loading or reloading the set if needed; `nil` when the set lacks it.
    public func key(id kid: String) async throws -> RSAPublicKey? {
        let (cached, mayReload) = state.withLock { state in
            (state.keys[kid], state.lastLoad.map { Date().timeIntervalSince($0) >= reloadInterval } ?? true)
        }
        if let cached { return cached }
        guard mayReload else { return nil }
        let keys = try Self.parse(try await load())
        state.withLock { state in
            state.keys = keys
            state.lastLoad = Date()
        }
        return keys[kid]
    }

    private func load() async throws -> Data {
        switch source {
        case .file(let path):
            return try await BlockingWork.run(name: "jwks-file") { try Data(contentsOf: URL(fileURLWithPath: path)) }
        case .url(let url):
            var request = URLRequest(url: url)
            request.timeoutInterval = 10
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
