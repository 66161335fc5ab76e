import Domain
import Foundation

/// Refresh tokens: 32 random bytes (256 bits) in base64url; a successor is the HMAC of its
/// parent under a server key, so the answer to a reuse inside the grace window can be
/// rebuilt from the presented token without keeping any token in clear. Stored hashes are
/// SHA-256.
public struct HMACRefreshTokenFactory: RefreshTokenFactory {
    private let key: [UInt8]

    /// Creates the factory; `key` must stay secret (it is derived from the JWT secret).
    public init(key: [UInt8]) {
        self.key = key
    }

    public func generate() -> String {
        Base64URL.encode(CryptoPrimitives.randomBytes(32))
    }

    public func successor(of token: String) -> String {
        Base64URL.encode(CryptoPrimitives.hmacSHA256(key: key, message: Data(token.utf8)))
    }

    public func hash(_ token: String) -> [UInt8] {
        SHA256.digest(Data(token.utf8))
    }
}
