import Codecs
import Domain
import Foundation
import HTTPServer
import Synchronization

/// Turns a request's bearer token into a ``Principal``, or says exactly why not.
///
/// Checking a token's header, signature, issuer and audience depends only on the token
/// and the keys, so the outcome for a token seen before is remembered (a bounded map,
/// cleared when full). Expiry and revocation are checked on every request.
public struct Authenticator: Sendable {
    private let codec: any AccessTokens
    private let revocations: SessionRevocations
    private let now: @Sendable () -> Date
    private let remembered = AuthenticatedTokens(capacity: 10_000)

    public init(codec: any AccessTokens, revocations: SessionRevocations, now: @escaping @Sendable () -> Date) {
        self.codec = codec
        self.revocations = revocations
        self.now = now
    }

    /// The caller of `request`; throws ``AuthError`` for a missing, invalid, expired or
    /// revoked token.
    public func principal(for request: HTTPRequest) throws -> Principal {
        guard let header = request.headers["Authorization"] else { throw AuthError.missingToken }
        // Byte-wise: Foundation's case folding and trimming bridge through NSString.
        let bytes = Array(header.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " "),
              zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 })
        else {
            throw AuthError.invalidToken("Authorization must be 'Bearer <token>'")
        }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var rest = bytes[(scheme.count + 1)...]
        while let first = rest.first, isBlank(first) { rest.removeFirst() }
        while let last = rest.last, isBlank(last) { rest.removeLast() }
        let token = String(decoding: rest, as: UTF8.self)
        let entry = try remembered.entry(for: token, now: now()) { try Self.authenticate(token, codec: codec) }
        do {
            try codec.checkLifetime(entry.claims, now: now())
        } catch .expired {
            throw AuthError.tokenExpired
        } catch {
            throw AuthError.invalidToken(Self.describe(error))
        }
        guard !revocations.isRevoked(entry.principal.sessionID) else { throw AuthError.sessionRevoked }
        // Fail closed: a write waits until this instance knows of recent sign-outs again.
        if !["GET", "HEAD", "OPTIONS"].contains(request.method), !revocations.isCurrent { throw AuthError.revocationsUnavailable }
        // A role granted or revoked since the token was issued applies at once.
        if let role = revocations.changedRole(of: entry.principal.userID), role != entry.principal.role {
            let principal = entry.principal
            return Principal(userID: principal.userID, sessionID: principal.sessionID, role: role, isAnonymous: principal.isAnonymous)
        }
        return entry.principal
    }

    private static func authenticate(_ token: String, codec: any AccessTokens) throws -> AuthenticatedTokens.Entry {
        let claims: AccessTokenClaims
        do {
            claims = try codec.authenticate(token)
        } catch {
            throw AuthError.invalidToken(describe(error))
        }
        guard let user = UUID(text: claims.sub), let session = UUID(text: claims.sid), let role = Role(rawValue: claims.role) else {
            throw AuthError.invalidToken("token claims are malformed")
        }
        let principal = Principal(userID: UserID(rawValue: user), sessionID: SessionID(rawValue: session), role: role, isAnonymous: claims.isAnonymous)
        return AuthenticatedTokens.Entry(claims: claims, principal: principal)
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
        // Never the token's own text: it would reach the body and WWW-Authenticate.
        case .algorithmNotAllowed: "token algorithm is not accepted"
        case .unknownKey: "token is signed with an unknown key"
        case .badSignature: "token signature is invalid"
        case .expired: "token has expired"
        case .notYetValid: "token is issued in the future"
        case .wrongIssuer: "token issuer is not accepted"
        case .wrongAudience: "token audience is not accepted"
        }
    }
}

/// Tokens whose header, signature, issuer and audience have been checked, with their
/// principals. Bounded: when it reaches `capacity` (about 1 KB per entry) expired tokens
/// are dropped, and if it is still full it is cleared. Refused tokens are not remembered,
/// so every key is a token this server signed.
final class AuthenticatedTokens: Sendable {
    struct Entry: Sendable {
        let claims: AccessTokenClaims
        let principal: Principal
    }

    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The remembered entry for `token`, or the one `authenticate` makes (remembered when
    /// it does not throw).
    func entry(for token: String, now: Date, authenticate: () throws -> Entry) throws -> Entry {
        if let entry = entries.withLock({ $0[token] }) { return entry }
        let entry = try authenticate()
        let seconds = Int(now.timeIntervalSince1970)
        entries.withLock { entries in
            if entries.count >= capacity { entries = entries.filter { $0.value.claims.exp > seconds } }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = entry
        }
        return entry
    }

    /// How many tokens are remembered.
    var count: Int { entries.withLock { $0.count } }
}
