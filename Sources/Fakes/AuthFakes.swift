import Domain
import Foundation
import Synchronization

/// A call a fake was not told to expect; thrown so the test fails loudly.
public struct UnexpectedCall: Error, CustomStringConvertible {
    /// The method called.
    public let description: String
    public init(_ method: String) { description = "unexpected call: \(method)" }
}

/// A ``UserRepository`` whose every method throws ``UnexpectedCall`` unless the test
/// sets its handler, so a use case touching storage it should not touch fails the test.
public struct FakeUserRepository: UserRepository {
    /// In memory: no replicas, no queue to leave.
    public func scoped(_ scope: RequestScope) -> Self { self }

    public var createAnonymousHandler: @Sendable (UserID, Date) async throws -> User = { _, _ in throw UnexpectedCall("createAnonymous") }
    public var createPermanentHandler: @Sendable (UserID, NewIdentity, String?, Date) async throws -> User = { _, _, _, _ in throw UnexpectedCall("createPermanent") }
    public var userHandler: @Sendable (UserID) async throws -> User? = { _ in throw UnexpectedCall("user") }
    public var identityHandler: @Sendable (IdentityProvider, String) async throws -> StoredIdentity? = { _, _ in throw UnexpectedCall("identity") }
    public var upgradeHandler: @Sendable (UserID, NewIdentity, Date) async throws -> User = { _, _, _ in throw UnexpectedCall("upgrade") }
    public var mergeHandler: @Sendable (UserID, UserID) async throws -> Void = { _, _ in throw UnexpectedCall("merge") }
    public var updateProfileHandler: @Sendable (UserID, String?, String?, Date) async throws -> User = { _, _, _, _ in throw UnexpectedCall("updateProfile") }
    public var deleteHandler: @Sendable (UserID) async throws -> Void = { _ in throw UnexpectedCall("delete") }
    public var recordSignInHandler: @Sendable (IdentityProvider, String, IdentityProfile?, Date) async throws -> Void = { _, _, _, _ in throw UnexpectedCall("recordSignIn") }

    /// A fake that expects no calls.
    public init() {}

    public func createAnonymous(id: UserID, now: Date) async throws -> User { try await createAnonymousHandler(id, now) }
    public func createPermanent(id: UserID, identity: NewIdentity, nickname: String?, now: Date) async throws -> User { try await createPermanentHandler(id, identity, nickname, now) }
    public func user(id: UserID) async throws -> User? { try await userHandler(id) }
    public func identity(provider: IdentityProvider, subject: String) async throws -> StoredIdentity? { try await identityHandler(provider, subject) }
    public func upgrade(id: UserID, identity: NewIdentity, now: Date) async throws -> User { try await upgradeHandler(id, identity, now) }
    public func merge(anonymous: UserID, into target: UserID) async throws { try await mergeHandler(anonymous, target) }
    public func updateProfile(id: UserID, nickname: String?, profileURL: String?, now: Date) async throws -> User { try await updateProfileHandler(id, nickname, profileURL, now) }
    public func delete(id: UserID) async throws { try await deleteHandler(id) }
    public func recordSignIn(provider: IdentityProvider, subject: String, profile: IdentityProfile?, now: Date) async throws {
        try await recordSignInHandler(provider, subject, profile, now)
    }
}

/// A ``SessionRepository`` with the same fail-loudly rule.
public struct FakeSessionRepository: SessionRepository {
    public var createHandler: @Sendable (SessionID, UserID, [UInt8], Date) async throws -> Void = { _, _, _, _ in throw UnexpectedCall("create") }
    public var rotateHandler: @Sendable ([UInt8], [UInt8], Date, TimeInterval, SessionLimits) async throws -> RotationOutcome = { _, _, _, _, _ in throw UnexpectedCall("rotate") }
    public var revokeHandler: @Sendable (SessionID, RevocationReason, Date) async throws -> Void = { _, _, _ in throw UnexpectedCall("revoke") }
    public var revokeAllHandler: @Sendable (UserID, SessionID?, RevocationReason, Date) async throws -> Void = { _, _, _, _ in throw UnexpectedCall("revokeAll") }

    /// A fake that expects no calls.
    public init() {}

    public func create(id: SessionID, userID: UserID, tokenHash: [UInt8], now: Date) async throws { try await createHandler(id, userID, tokenHash, now) }
    public func rotate(tokenHash: [UInt8], successorHash: [UInt8], now: Date, grace: TimeInterval, limits: SessionLimits) async throws -> RotationOutcome {
        try await rotateHandler(tokenHash, successorHash, now, grace, limits)
    }
    public func revoke(id: SessionID, reason: RevocationReason, now: Date) async throws { try await revokeHandler(id, reason, now) }
    public func revokeAll(userID: UserID, keeping: SessionID?, reason: RevocationReason, now: Date) async throws { try await revokeAllHandler(userID, keeping, reason, now) }
}

/// A password hasher that must not be called.
public struct FakePasswordHasher: PasswordHasher {
    public var hashHandler: @Sendable (String) async throws -> String = { _ in throw UnexpectedCall("hash") }
    public var verifyHandler: @Sendable (String, String) async throws -> Bool = { _, _ in throw UnexpectedCall("verify") }
    /// A fake that expects no calls.
    public init() {}
    public func hash(_ password: String) async throws -> String { try await hashHandler(password) }
    public func verify(_ password: String, against hash: String) async throws -> Bool { try await verifyHandler(password, hash) }
    public var decoyHash: String { "decoy-hash" }
}

/// Password budgets that record every reservation and release, and refuse once `limit`
/// reservations are outstanding.
public final class RecordingPasswordAttempts: PasswordAttemptLimiter {
    private let state = Mutex<(calls: [String], outstanding: Int)>(([], 0))
    private let limit: Int
    /// Budgets allowing `limit` outstanding reservations.
    public init(limit: Int = .max) { self.limit = limit }
    /// `reserve email client` / `release email client`, in order.
    public var calls: [String] { state.withLock { $0.calls } }
    public func reserve(email: String, client: String) async throws {
        try state.withLock { state in
            guard state.outstanding < limit else { throw AuthError.rateLimited(retryAfterSeconds: 60) }
            state.outstanding += 1
            state.calls.append("reserve \(email) \(client)")
        }
    }
    public func release(email: String, client: String) async {
        state.withLock { state in
            state.outstanding -= 1
            state.calls.append("release \(email) \(client)")
        }
    }
}

/// An ID-token verifier that must not be called.
public struct FakeIDTokenVerifier: IDTokenVerifier {
    public var handler: @Sendable (IdentityProvider, String, String?) async throws -> VerifiedIdentity = { _, _, _ in throw UnexpectedCall("verify") }
    /// A fake that expects no calls.
    public init() {}
    public func verify(provider: IdentityProvider, idToken: String, nonce: String?) async throws -> VerifiedIdentity { try await handler(provider, idToken, nonce) }
}

/// Readable, deterministic refresh tokens: `token-N`, successors `token-N'`, hashes are
/// the UTF-8 bytes.
public final class SequentialRefreshTokens: RefreshTokenFactory {
    private let counter = Mutex(0)
    public init() {}
    public func generate() -> String { "token-\(counter.withLock { $0 += 1; return $0 })" }
    public func successor(of token: String) -> String { token + "'" }
    public func hash(_ token: String) -> [UInt8] { Array(token.utf8) }
}
