import Domain
import Foundation

/// An HMAC key with its `kid`.
public struct SigningKey: Sendable {
    /// The key id written into token headers.
    public let id: String
    /// The secret (at least 32 bytes).
    public let secret: [UInt8]

    public init(id: String, secret: [UInt8]) {
        self.id = id
        self.secret = secret
    }
}

/// Signs and verifies HS256 access tokens. Signs with the first key and accepts any
/// configured key, so keys can rotate: add the new key first, keep the old one until the
/// last token it signed has expired, then drop it.
public struct AccessTokenCodec: AccessTokens {
    private let keys: [SigningKey]
    /// The `iss` this server writes and requires.
    public let issuer: String
    /// The `aud` this server writes and requires.
    public let audience: String
    private let skewSeconds: Int

    /// Creates a codec; `keys` must not be empty.
    public init(keys: [SigningKey], issuer: String, audience: String, skewSeconds: Int = 30) {
        precondition(!keys.isEmpty, "at least one signing key is required")
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.skewSeconds = skewSeconds
    }

    /// The compact JWS for `claims`; equal claims give byte-identical tokens.
    public func sign(_ claims: AccessTokenClaims) -> String {
        let key = keys[0]
        let header = #"{"alg":"HS256","kid":"\#(key.id)","typ":"JWT"}"#
        // Encoding a struct of strings, integers and a boolean cannot fail.
        let payload = (try? Self.encoder.encode(claims)) ?? Data()
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(CryptoPrimitives.hmacSHA256(key: key.secret, message: Data(signingInput.utf8)))
    }

    /// The claims of `token` if it is ours and intact (header, signature, issuer,
    /// audience), whatever the time. The answer depends only on the token and the keys, so
    /// callers may remember it; ``checkLifetime(_:now:)`` must still run on every use.
    public func authenticate(_ token: String) throws(TokenVerificationError) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { throw .malformed }
        guard header.alg == "HS256" else { throw .algorithmNotAllowed(header.alg) }
        guard let key = keys.first(where: { $0.id == header.kid }) else { throw .unknownKey }
        let expected = CryptoPrimitives.hmacSHA256(key: key.secret, message: Data((parts[0] + "." + parts[1]).utf8))
        guard CryptoPrimitives.constantTimeEquals(expected, Array(signature)) else { throw .badSignature }
        guard let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: payload) else { throw .malformed }
        guard claims.iss == issuer else { throw .wrongIssuer }
        guard claims.aud == audience else { throw .wrongAudience }
        return claims
    }

    /// Throws when `claims` are not current at `now` (issued in the future beyond the
    /// allowed skew, or expired).
    public func checkLifetime(_ claims: AccessTokenClaims, now: Date) throws(TokenVerificationError) {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        guard claims.iat <= seconds + skewSeconds else { throw .notYetValid }
        guard seconds < claims.exp else { throw .expired }
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String?
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
