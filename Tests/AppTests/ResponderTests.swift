@testable import App
import Domain
import Fakes
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// The pipeline over the real database: categories read through every layer.
@Suite struct ResponderDatabaseTests {
    @Test func categoriesComeFromPostgresThroughEveryLayer() async throws {
        let database = try await TestDatabase.migrated()
        let app = Application.makeResponder(dependencies: .live(pool: database.pool, auth: testAuth, logger: LogCapture().logger), auth: testAuth, cors: CORSPolicy(allowedOrigins: []), logger: LogCapture().logger)

        let response = await app.respond(to: HTTPRequest(method: "GET", path: "/v1/categories"))

        #expect(response.status == 200)
        struct Counts: Decodable {
            struct Count: Decodable { let id, name: String; let post_count, open_post_count: Int }
            let data: [Count]
        }
        let decoded = try JSONDecoder().decode(Counts.self, from: response.body)
        #expect(decoded.data.map { "\($0.id)=\($0.name)" } == contractCategories.map { "\($0.id)=\($0.name)" })
        #expect(decoded.data.allSatisfy { $0.post_count == 0 && $0.open_post_count == 0 })
        await database.drop()
    }
}

struct AlwaysReady: ReadinessProbe {
    func check() async throws {}
}

/// Auth settings for tests that do not sign anybody in.

/// A pool that is never used: connections open lazily, so nothing connects.
let unusedPool = PostgresPool(.init(url: "postgresql://unused@127.0.0.1:1/unused", size: 1))
