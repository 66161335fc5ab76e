import Domain
import Foundation
@testable import Persistence
@testable import PostgresDriver
import DatabaseTestSupport
import Testing

/// `GET /v1/me` reads the caller with ``PostgresUserRepository/user(id:)``: the user, its
/// identities in the order they were linked, and the first one's email and provider.
@Suite struct UserLookupTests {
    @Test func aUserAndItsIdentitiesAreReadInOneRoundTrip() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let users = PostgresUserRepository(pool: pool)
        let id = UserID(rawValue: UUID())
        let linked = Date(timeIntervalSince1970: 1_780_000_000)
        _ = try await users.createPermanent(id: id, identity: NewIdentity(provider: .email, subject: "ha@example.com", email: "ha@example.com",
                                                                           passwordHash: "x"), nickname: "하나", now: linked)
        try await pool.withConnection { connection in
            try connection.execute("""
                INSERT INTO identities (id, user_id, provider, subject, email, name, picture, created_at, last_sign_in_at, updated_at)
                VALUES (\(UUID()), \(id.rawValue), 'google', 'google-sub-1', 'ha@gmail.com', 'Hana Kim', 'https://lh3.example/photo.jpg',
                        \(linked.addingTimeInterval(60)), \(linked.addingTimeInterval(60)), \(linked.addingTimeInterval(60)))
                """)
        }
        let before = try await pool.withConnection { $0.successfulRoundTrips }

        let user = try #require(try await users.user(id: id))

        let after = try await pool.withConnection { $0.successfulRoundTrips }
        #expect(after - before == 1, "the lookup took \(after - before) round trips")
        #expect(user.identities.map(\.provider) == [.email, .google])
        #expect(user.identities.last?.profile == IdentityProfile(name: "Hana Kim", picture: "https://lh3.example/photo.jpg"))
        #expect(user.email == "ha@example.com" && user.provider == .email)
        #expect(user.nickname == "하나" && !user.isAnonymous)
        await pool.close()
        await database.drop()
    }

    @Test func aUserWithoutIdentitiesAndAnUnknownUser() async throws {
        let database = try await TestDatabase.migrated()
        let pool = PostgresPool(.init(url: database.url, size: 1))
        let users = PostgresUserRepository(pool: pool)
        let id = UserID(rawValue: UUID())
        _ = try await users.createAnonymous(id: id, now: Date())

        let user = try #require(try await users.user(id: id))
        #expect(user.isAnonymous && user.identities.isEmpty && user.email == nil && user.provider == nil)
        #expect(try await users.user(id: UserID(rawValue: UUID())) == nil)
        await pool.close()
        await database.drop()
    }
}
