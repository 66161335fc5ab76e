import Domain
import Fakes
import Foundation
import Synchronization
import Testing

/// The sign-in rules with in-memory fakes: which storage each use case touches, with
/// which arguments, and what it answers.
@Suite struct AuthenticationTests {
    private let now = Date(timeIntervalSince1970: 1_795_960_706)
    private let fixedID = UUID(uuidString: "00000000-0000-0000-0000-0000000000aa")!

    private func authentication(
        users: FakeUserRepository = FakeUserRepository(), sessions: FakeSessionRepository = FakeSessionRepository(),
        passwords: FakePasswordHasher = FakePasswordHasher(), idTokens: FakeIDTokenVerifier = FakeIDTokenVerifier(),
        attempts: RecordingPasswordAttempts = RecordingPasswordAttempts(), grace: TimeInterval = 10
    ) -> Authentication {
        var settings = Authentication.Settings()
        settings.refreshGrace = grace
        return Authentication(users: users, sessions: sessions, passwords: passwords, attempts: attempts, refreshTokens: SequentialRefreshTokens(),
                              idTokens: idTokens, settings: settings, now: { [now] in now }, newID: { [fixedID] in fixedID })
    }

    private func user(anonymous: Bool) -> User {
        User(id: UserID(rawValue: fixedID), isAnonymous: anonymous, createdAt: now)
    }

    @Test func anonymousSignInCreatesAUserAndASessionWithTheFirstToken() async throws {
        let created = Mutex<[String]>([])
        var users = FakeUserRepository()
        users.createAnonymousHandler = { [user = user(anonymous: true)] id, _ in
            created.withLock { $0.append("user \(id)") }
            return user
        }
        var sessions = FakeSessionRepository()
        sessions.createHandler = { id, userID, hash, date in
            created.withLock { $0.append("session \(id) of \(userID) hash \(String(decoding: hash, as: UTF8.self)) at \(date.timeIntervalSince1970)") }
        }

        let issued = try await authentication(users: users, sessions: sessions).signInAnonymously()

        #expect(issued.refreshToken == "token-1")
        #expect(issued.issuedAt == now)
        let id = fixedID.uuidString.lowercased()
        #expect(created.withLock { $0 } == ["user \(id)", "session \(id) of \(id) hash token-1 at 1795960706.0"])
    }

    @Test(arguments: [
        (RotationOutcome.reused, AuthError.refreshTokenReused),
        (.revoked, .sessionRevoked),
        (.unknown, .invalidToken("unknown refresh token")),
    ])
    func refreshOutcomesBecomeTheirErrors(outcome: RotationOutcome, error: AuthError) async throws {
        var sessions = FakeSessionRepository()
        sessions.rotateHandler = { _, _, _, _, _ in outcome }
        await #expect(throws: error) { try await authentication(sessions: sessions).refresh(refreshToken: "token-7") }
    }

    @Test func aReplayedRotationHandsBackTheSuccessorOfThePresentedToken() async throws {
        let received = Mutex<[String]>([])
        var sessions = FakeSessionRepository()
        let issuedAt = now.addingTimeInterval(-3)
        sessions.rotateHandler = { [user = user(anonymous: true)] hash, successorHash, _, grace, _ in
            received.withLock { $0 = [String(decoding: hash, as: UTF8.self), String(decoding: successorHash, as: UTF8.self), "\(grace)"] }
            return .replayed(user: user, sessionID: SessionID(rawValue: UUID()), issuedAt: issuedAt)
        }

        let issued = try await authentication(sessions: sessions, grace: 7).refresh(refreshToken: "token-7")

        #expect(received.withLock { $0 } == ["token-7", "token-7'", "7.0"])
        #expect(issued.refreshToken == "token-7'")
        #expect(issued.issuedAt == issuedAt)
    }

    @Test func aPermanentUserCannotUpgradeAndNothingIsTouched() async throws {
        let principal = Principal(userID: UserID(rawValue: fixedID), sessionID: SessionID(rawValue: UUID()), role: .user, isAnonymous: false)
        await #expect(throws: AuthError.alreadyPermanent) {
            try await authentication().upgrade(principal, with: .email(email: "a@b.co", password: "password"), merge: false, client: "192.0.2.1")
        }
    }

    @Test func upgradingToAnotherAccountsEmailWithoutMergeIsRefusedBeforeHashing() async throws {
        var users = FakeUserRepository()
        users.identityHandler = { provider, subject in
            #expect(provider == .email)
            #expect(subject == "owner@example.com")
            return StoredIdentity(userID: UserID(rawValue: UUID()), passwordHash: "hash")
        }
        let principal = Principal(userID: UserID(rawValue: fixedID), sessionID: SessionID(rawValue: UUID()), role: .user, isAnonymous: true)

        await #expect(throws: AuthError.identityExists) {
            try await authentication(users: users).upgrade(principal, with: .email(email: " Owner@Example.com", password: "whatever1"), merge: false, client: "192.0.2.1")
        }
    }

    @Test(arguments: [("bad-email", "long enough", "email"), ("a@b.co", "short", "password")])
    func signUpValidatesBeforeHashingOrStoring(email: String, password: String, field: String) async throws {
        do {
            _ = try await authentication().signUp(email: email, password: password, nickname: nil)
            Issue.record("expected a validation error")
        } catch let DomainError.invalid(invalidField, _) {
            #expect(invalidField == field)
        }
    }

    @Test func logoutScopesRevokeTheRightSessions() async throws {
        let calls = Mutex<[String]>([])
        var sessions = FakeSessionRepository()
        sessions.revokeHandler = { id, reason, _ in calls.withLock { $0.append("revoke \(id) \(reason.rawValue)") } }
        sessions.revokeAllHandler = { user, keeping, reason, _ in calls.withLock { $0.append("revokeAll \(user) keeping \(keeping.map(\.description) ?? "none") \(reason.rawValue)") } }
        let session = SessionID(rawValue: UUID())
        let principal = Principal(userID: UserID(rawValue: fixedID), sessionID: session, role: .user, isAnonymous: false)
        let auth = authentication(sessions: sessions)

        for scope in LogoutScope.allCases { try await auth.logout(principal, scope: scope) }

        let user = fixedID.uuidString.lowercased()
        #expect(calls.withLock { $0 } == [
            "revoke \(session) logout",
            "revokeAll \(user) keeping none logout",
            "revokeAll \(user) keeping \(session) logout",
        ])
    }

    @Test func aWrongPasswordAndAnUnknownEmailAreTheSameErrorAndTheSameKDFWork() async throws {
        var users = FakeUserRepository()
        users.identityHandler = { _, subject in subject == "known@example.com" ? StoredIdentity(userID: UserID(rawValue: UUID()), passwordHash: "h") : nil }
        let checked = Mutex<[String]>([])
        var passwords = FakePasswordHasher()
        passwords.verifyHandler = { _, hash in checked.withLock { $0.append(hash) }; return false }
        let attempts = RecordingPasswordAttempts()
        let auth = authentication(users: users, passwords: passwords, attempts: attempts)

        await #expect(throws: AuthError.invalidCredentials) { try await auth.signIn(email: "known@example.com", password: "wrong", client: "c") }
        await #expect(throws: AuthError.invalidCredentials) { try await auth.signIn(email: "nobody@example.com", password: "wrong", client: "c") }
        #expect(checked.withLock { $0 } == ["h", "decoy-hash"])
        // Failures keep their reservations.
        #expect(attempts.calls == ["reserve known@example.com c", "reserve nobody@example.com c"])
    }

    @Test func aRightPasswordGivesItsReservationBack() async throws {
        let owner = UserID(rawValue: fixedID)
        var users = FakeUserRepository()
        users.identityHandler = { _, _ in StoredIdentity(userID: owner, passwordHash: "h") }
        users.userHandler = { [now] id in User(id: id, isAnonymous: false, createdAt: now) }
        users.recordSignInHandler = { _, _, _, _ in }
        var sessions = FakeSessionRepository()
        sessions.createHandler = { _, _, _, _ in }
        var passwords = FakePasswordHasher()
        passwords.verifyHandler = { _, _ in true }
        let attempts = RecordingPasswordAttempts()
        _ = try await authentication(users: users, sessions: sessions, passwords: passwords, attempts: attempts)
            .signIn(email: " Known@Example.com", password: "right", client: "c")
        #expect(attempts.calls == ["reserve known@example.com c", "release known@example.com c"])
    }

    @Test func aSpentBudgetRefusesBeforeAnyLookupOrKDF() async throws {
        let attempts = RecordingPasswordAttempts(limit: 0)
        await #expect(throws: AuthError.rateLimited(retryAfterSeconds: 60)) {
            try await authentication(attempts: attempts).signIn(email: "known@example.com", password: "guess", client: "c")
        }
        let principal = Principal(userID: UserID(rawValue: UUID()), sessionID: SessionID(rawValue: UUID()), role: .user, isAnonymous: true)
        var users = FakeUserRepository()
        users.identityHandler = { _, _ in StoredIdentity(userID: UserID(rawValue: UUID()), passwordHash: "h") }
        await #expect(throws: AuthError.rateLimited(retryAfterSeconds: 60)) {
            try await authentication(users: users, attempts: attempts).upgrade(principal, with: .email(email: "known@example.com", password: "guess"), merge: true, client: "c")
        }
    }
}
