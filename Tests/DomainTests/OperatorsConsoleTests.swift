import Domain
import Fakes
import Foundation
import Synchronization
import Testing

/// The console's rules over in-memory fakes: who signs in, what is stored of a session,
/// when it lapses, and what a dangerous action asks for.
@Suite struct OperatorsConsoleTests {
    private let admin = UserID(rawValue: UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!)
    private let member = UserID(rawValue: UUID(uuidString: "00000000-0000-0000-0000-0000000000b2")!)
    private let clock = TestClock(start: Date(timeIntervalSince1970: 1_796_000_000))
    private let actor = AdminActor(userID: nil, name: "ops@example.com", channel: .console, address: "198.51.100.1")

    /// A console over `store` whose passwords are "right" and whose tokens are `token-N`
    /// (hashed as their reversed bytes, so a stored hash is never the token).
    private func console(_ store: InMemoryConsoleStore, attempts: RecordingPasswordAttempts = RecordingPasswordAttempts()) -> OperatorsConsole {
        var users = FakeUserRepository()
        users.identityHandler = { [admin, member] _, subject in
            StoredIdentity(userID: subject.hasPrefix("ops") ? admin : member, passwordHash: "hash")
        }
        users.userHandler = { [admin] id in
            User(id: id, isAnonymous: false, role: id == admin ? .admin : .user, email: id == admin ? "ops@example.com" : "member@example.com",
                 createdAt: Date(timeIntervalSince1970: 0))
        }
        users.recordSignInHandler = { _, _, _, _ in }
        var passwords = FakePasswordHasher()
        passwords.verifyHandler = { password, _ in password == "right" }
        let authentication = Authentication(users: users, sessions: FakeSessionRepository(), passwords: passwords, attempts: attempts,
                                            refreshTokens: SequentialRefreshTokens(), idTokens: FakeIDTokenVerifier(),
                                            now: clock.source, newID: { UUID() })
        let counter = Mutex(0)
        return OperatorsConsole(store: store, authentication: authentication, idleTimeout: 1800,
                                newToken: { "token-\(counter.withLock { $0 += 1; return $0 })" }, hash: { Array($0.utf8.reversed()) },
                                now: clock.source)
    }

    @Test func anAdminSignsInToASessionStoredAsItsHash() async throws {
        let store = InMemoryConsoleStore(emails: [admin: "ops@example.com"])
        let console = console(store)
        let (token, session) = try await console.signIn(email: "ops@example.com", password: "right", client: "198.51.100.1")
        #expect(token == "token-1" && session.csrfToken == "token-2" && session.userID == admin)
        #expect(store.storedHashes == [Array("token-1".utf8.reversed())])
        #expect(try await console.session(token: token)?.userID == admin)
        #expect(try await console.session(token: "token-2") == nil, "the CSRF token opened a session")
    }

    @Test func aMembersRightPasswordIsRefusedAndStoresNothing() async throws {
        let store = InMemoryConsoleStore()
        await #expect(throws: DomainError.forbidden("not_admin")) {
            try await console(store).signIn(email: "member@example.com", password: "right", client: "198.51.100.1")
        }
        #expect(store.storedHashes.isEmpty)
    }

    @Test func aWrongPasswordDrawsOnTheAPIsBudgets() async throws {
        let attempts = RecordingPasswordAttempts()
        await #expect(throws: AuthError.invalidCredentials) {
            try await console(InMemoryConsoleStore(), attempts: attempts).signIn(email: "ops@example.com", password: "wrong", client: "198.51.100.1")
        }
        #expect(attempts.calls == ["reserve ops@example.com 198.51.100.1"])
    }

    @Test func aSessionLapsesAfterItsIdleTimeoutAndUseKeepsItAlive() async throws {
        let store = InMemoryConsoleStore(emails: [admin: "ops@example.com"])
        let console = console(store)
        let (token, _) = try await console.signIn(email: "ops@example.com", password: "right", client: "a")
        clock.advance(by: 1700)
        #expect(try await console.session(token: token) != nil)
        clock.advance(by: 1700)
        #expect(try await console.session(token: token) != nil, "a use did not keep the session alive")
        clock.advance(by: 1801)
        #expect(try await console.session(token: token) == nil)
        #expect(try await console.session(token: String(repeating: "x", count: 4096)) == nil)
    }

    @Test func bulkChangesOverTheThresholdNeedTheirCountTyped() async throws {
        let store = InMemoryConsoleStore()
        let console = console(store)
        let many = (1...101).map(PostID.init(rawValue:))
        await #expect(throws: DomainError.self) { try await console.setHidden(posts: many, hidden: true, confirmedCount: nil, actor: actor) }
        await #expect(throws: DomainError.self) { try await console.setHidden(posts: many, hidden: true, confirmedCount: 100, actor: actor) }
        #expect(try await console.setHidden(posts: many, hidden: true, confirmedCount: 101, actor: actor) == 101)
        #expect(try await console.setHidden(posts: Array(many.prefix(100)), hidden: false, confirmedCount: nil, actor: actor) == 100)
        #expect(store.changes.count == 2 && store.changes[0].hasPrefix("hide 1,2,3") && store.changes[1].hasPrefix("show 1,"))
    }

    @Test func noneAndTooManyAreRefusedBeforeTheStore() async throws {
        let store = InMemoryConsoleStore()
        let console = console(store)
        await #expect(throws: DomainError.self) { try await console.setHidden(posts: [], hidden: true, confirmedCount: nil, actor: actor) }
        let tooMany = (1...(OperatorsConsole.bulkLimit + 1)).map(PostID.init(rawValue:))
        await #expect(throws: DomainError.self) {
            try await console.setHidden(posts: tooMany, hidden: true, confirmedCount: tooMany.count, actor: actor)
        }
        #expect(store.changes.isEmpty)
    }

    @Test func deletingAnAccountNeedsTheActingAdminsOwnPassword() async throws {
        let store = InMemoryConsoleStore(emails: [admin: "ops@example.com"])
        let console = console(store)
        let session = ConsoleSession(userID: admin, email: "ops@example.com", csrfToken: "c")
        await #expect(throws: AuthError.invalidCredentials) {
            try await console.deleteUser(member, confirmingWith: "wrong", session: session, actor: actor)
        }
        #expect(store.changes.isEmpty)
        #expect(try await console.deleteUser(member, confirmingWith: "right", session: session, actor: actor))
        #expect(store.changes == ["delete user \(member) by ops@example.com"])
    }

    @Test func theCLIsActorIsNamedAfterItsUser() {
        #expect(AdminActor.cli("deploy").name == "cli:deploy" && AdminActor.cli("").name == "cli:unknown" && AdminActor.cli("x").channel == .cli)
        #expect(AdminActor(userID: nil, name: String(repeating: "a", count: 400), channel: .api, address: String(repeating: "1", count: 90)).name.count == 300)
    }
}
