import Foundation
import HTTPTestSupport
import Persistence
import PostgresDriver
import Workers

/// A private PostgreSQL database for one test, created in the cluster that the test
/// command (`scripts/test`) starts and names in `MARKET09_TEST_DATABASE_URL`.
///
/// ``migrated()`` clones a template that holds the current schema (migrated once per test
/// process), so every test starts from the same known state in milliseconds;
/// ``empty()`` gives a database with no schema, for migration tests.
public struct TestDatabase: Sendable {
    /// The database's name.
    public let name: String
    /// A libpq URL for it.
    public let url: String
    /// A pool of 4 connections to it.
    public let pool: PostgresPool
    /// Whether ``drop()`` drops the database, or only closes this pool (a sibling's view).
    private let owner: Bool

    /// A database by its parts; `owner: false` makes ``drop()`` close only the pool (a
    /// database someone else made, reached at `url`).
    public init(name: String, url: String, pool: PostgresPool, owner: Bool = true) {
        self.name = name
        self.url = url
        self.pool = pool
        self.owner = owner
    }

    /// `database` seen through another pool; dropping this closes only that pool.
    public init(sharing database: TestDatabase, pool: PostgresPool) {
        self.init(name: database.name, url: database.url, pool: pool, owner: false)
    }

    /// A fresh database with every migration applied.
    public static func migrated() async throws -> TestDatabase {
        let template = try await Template.shared.name()
        return try await create(template: template)
    }

    /// A fresh database with no tables at all.
    public static func empty() async throws -> TestDatabase {
        try await create(template: "template0")
    }

    /// Closes the pool and drops the database.
    public func drop() async {
        await pool.close()
        guard owner else { return }
        let name = name
        _ = try? await Self.admin { connection in
            try connection.execute(script: "DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)")
        }
    }

    /// The migrations of this checkout, as the server loads them.
    public static func migrations() throws -> [Migration] {
        try Migration.load(from: migrationsDirectory)
    }

    /// `<package>/migrations`.
    public static let migrationsDirectory = packageRoot.appendingPathComponent("migrations", isDirectory: true)

    /// The package's root directory, found from this source file's path.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The URL of database `name` in the test cluster.
    public static func url(database name: String) throws -> String {
        let admin = try adminURL()
        guard let slash = admin.lastIndex(of: "/") else { return admin }
        return admin[..<slash] + "/" + name
    }

    private static func create(template: String) async throws -> TestDatabase {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await admin { connection in
            try connection.execute(script: "CREATE DATABASE \(unescaped: name) TEMPLATE \(unescaped: template)")
        }
        let url = try url(database: name)
        return TestDatabase(name: name, url: url, pool: PostgresPool(.init(url: url, size: 4, connectTimeoutSeconds: connectTimeoutSeconds)))
    }

    /// Connection timeouts of the test harness's own connections: generous, because what
    /// they time the machine, not the code under test. (A CI run on a loaded machine failed
    /// 30 tests at once: the connection that builds their shared template timed out at
    /// libpq's usual 5 s.)
    static let connectTimeoutSeconds = 30

    static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["MARKET09_TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestEnvironmentError("MARKET09_TEST_DATABASE_URL is not set: run the tests with scripts/test, which starts PostgreSQL")
        }
        return url
    }

    static func admin<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let url = try adminURL()
        return try await BlockingWork.run(name: "test-admin") {
            let connection = try PostgresConnection(url: url, connectTimeoutSeconds: connectTimeoutSeconds)
            defer { connection.close() }
            return try body(connection)
        }
    }

    /// Creates the migrated template once per test process.
    private actor Template {
        static let shared = Template()
        private var creation: Task<String, any Error>?

        /// The template's name; a failed creation is not kept, so the next test tries again.
        func name() async throws -> String {
            if let creation { return try await creation.value }
            let task = Task<String, any Error> {
                let name = "template_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
                try await TestDatabase.admin { connection in
                    try connection.execute(script: "CREATE DATABASE \(unescaped: name) TEMPLATE template0")
                }
                let pool = PostgresPool(.init(url: try TestDatabase.url(database: name), size: 1,
                                              connectTimeoutSeconds: TestDatabase.connectTimeoutSeconds))
                do {
                    try await Migrator(pool: pool, migrations: TestDatabase.migrations()).migrate()
                } catch {
                    await pool.close()
                    throw error
                }
                await pool.close()
                return name
            }
            creation = task
            do {
                return try await task.value
            } catch {
                if creation == task { creation = nil }
                throw error
            }
        }
    }
}
