import Data
import Domain

/// The composition root: builds the whole HTTP application from its dependencies. The
/// server passes live PostgreSQL-backed ones; tests pass their own.
public enum Application {
    /// What the application needs from the outside world.
    public struct Dependencies: Sendable {
        /// Category storage.
        public var categories: any CategoryRepository
        /// Answers `/ready`.
        public var readiness: any ReadinessProbe

        /// Creates dependencies from explicit parts.
        public init(categories: any CategoryRepository, readiness: any ReadinessProbe) {
            self.categories = categories
            self.readiness = readiness
        }

        /// Everything backed by one PostgreSQL pool.
        public static func live(pool: PostgresPool) -> Dependencies {
            Dependencies(categories: PostgresCategoryRepository(pool: pool), readiness: pool)
        }
    }

    /// Every route of the application: probes at the root, features under `/v1`.
    public static func routes(dependencies: Dependencies, logger: Logger) -> [Route] {
        let health = HealthController(readiness: dependencies.readiness, logger: logger)
        let categories = CategoriesController(listCategories: ListCategories(categories: dependencies.categories))
        let v1 = categories.routes
        return health.routes + v1.map { $0.mounted(at: "/v1") }
    }

    /// The request pipeline with every route mounted.
    public static func makeResponder(dependencies: Dependencies, cors: CORSPolicy, logger: Logger) -> RoutingResponder {
        RoutingResponder(routes: routes(dependencies: dependencies, logger: logger), cors: cors, logger: logger)
    }
}
