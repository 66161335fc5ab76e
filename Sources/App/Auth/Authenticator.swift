import Data
import Domain
import Foundation

/// Turns a request's bearer token into a ``Principal``, or says exactly why not.
public struct Authenticator: Sendable {
    private let codec: AccessTokenCodec
    private let revocations: SessionRevocations
    private let now: @Sendable () -> Date

    /// Creates the authenticator.
    public init(codec: AccessTokenCodec, revocations: SessionRevocations, now: @escaping @Sendable () -> Date) {
        self.codec = codec
        self.revocations = revocations
        self.now = now
    }

    /// The caller of `request`; throws ``AuthError`` for a missing, invalid, expired or
    /// revoked token.
    public func principal(for request: HTTPRequest) throws -> Principal {
        guard let header = request.headers["Authorization"] else { throw AuthError.missingToken }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw AuthError.invalidToken("Authorization must be 'Bearer <token>'")
        }
        let claims: AccessTokenClaims
        do {
            claims = try codec.verify(String(parts[1]).trimmingCharacters(in: .whitespaces), now: now())
        } catch .expired {
            throw AuthError.tokenExpired
        } catch {
            throw AuthError.invalidToken(Self.describe(error))
        }
        guard let user = UUID(uuidString: claims.sub), let session = UUID(uuidString: claims.sid), let role = Role(rawValue: claims.role) else {
            throw AuthError.invalidToken("token claims are malformed")
        }
        let principal = Principal(userID: UserID(rawValue: user), sessionID: SessionID(rawValue: session), role: role, isAnonymous: claims.isAnonymous)
        guard !revocations.isRevoked(principal.sessionID) else { throw AuthError.sessionRevoked }
        return principal
    }

    /// The access token for `session`, issued at its `issuedAt` (so a replayed refresh
    /// yields the identical token), and its expiry.
    public func accessToken(for session: IssuedSession, lifetime: Int) -> (token: String, expiresAt: Int) {
        let issuedAt = Int(session.issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = AccessTokenClaims(
            iss: codec.issuer, aud: codec.audience, sub: session.user.id.description, sid: session.sessionID.description,
            role: session.user.role.rawValue, isAnonymous: session.user.isAnonymous, iat: issuedAt, exp: issuedAt + lifetime)
        return (codec.sign(claims), issuedAt + lifetime)
    }

    private static func describe(_ error: TokenVerificationError) -> String {
        switch error {
        case .malformed: "token is not a well-formed JWT"
        case .algorithmNotAllowed(let alg): "token algorithm '\(alg)' is not accepted"
        case .unknownKey: "token is signed with an unknown key"
        case .badSignature: "token signature is invalid"
        case .expired: "token has expired"
        case .notYetValid: "token is issued in the future"
        case .wrongIssuer: "token issuer is not accepted"
        case .wrongAudience: "token audience is not accepted"
        }
    }
}
