import Foundation

/// The tokens of a signed-in client.
public struct StoredTokens: Codable, Sendable, Equatable {
    /// The access JWT.
    public var accessToken: String
    /// The opaque refresh token.
    public var refreshToken: String

    public init(accessToken: String, refreshToken: String) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token"
    }
}

/// What the client can tell about its stored session without asking the server, from
/// the access token's `exp` and `is_anonymous` claims.
public enum TokenStatus: Sendable, Equatable {
    /// Nothing stored.
    case noToken
    /// The access token is current.
    case valid(isAnonymous: Bool)
    /// The access token has expired (the refresh token may still work).
    case expired(isAnonymous: Bool)

    /// Reads `tokens` at `now`. A token whose claims cannot be read counts as expired,
    /// so the refresh path decides.
    public init(_ tokens: StoredTokens?, now: Date) {
        guard let tokens else { self = .noToken; return }
        let parts = tokens.accessToken.split(separator: ".")
        guard parts.count == 3, let payload = Self.base64URLDecode(String(parts[1])),
              let claims = try? JSONDecoder().decode(Claims.self, from: payload)
        else { self = .expired(isAnonymous: false); return }
        self = Double(claims.exp) > now.timeIntervalSince1970
            ? .valid(isAnonymous: claims.isAnonymous ?? false)
            : .expired(isAnonymous: claims.isAnonymous ?? false)
    }

    /// Whether the stored session belongs to an anonymous user.
    public var isAnonymous: Bool {
        switch self {
        case .noToken: false
        case .valid(let anonymous), .expired(let anonymous): anonymous
        }
    }

    private struct Claims: Decodable {
        let exp: Int
        let isAnonymous: Bool?
        enum CodingKeys: String, CodingKey { case exp, isAnonymous = "is_anonymous" }
    }

    private static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Where the client keeps its tokens.
public protocol TokenStore: Sendable {
    /// The stored tokens, if any.
    func load() async throws -> StoredTokens?
    /// Replaces the stored tokens.
    func save(_ tokens: StoredTokens) async throws
    /// Forgets the tokens.
    func clear() async throws
}

/// Tokens in memory only.
public actor InMemoryTokenStore: TokenStore {
    private var tokens: StoredTokens?

    /// Creates a store holding `tokens`.
    public init(_ tokens: StoredTokens? = nil) {
        self.tokens = tokens
    }

    public func load() -> StoredTokens? { tokens }
    public func save(_ tokens: StoredTokens) { self.tokens = tokens }
    public func clear() { tokens = nil }
}

/// Tokens in a JSON file readable only by its owner, replaced atomically.
public actor FileTokenStore: TokenStore {
    private let url: URL

    /// Creates a store at `url`.
    public init(url: URL) {
        self.url = url
    }

    public func load() throws -> StoredTokens? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(StoredTokens.self, from: Data(contentsOf: url))
    }

    public func save(_ tokens: StoredTokens) throws {
        try JSONEncoder().encode(tokens).write(to: url, options: [.atomic])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}
