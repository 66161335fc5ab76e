import Domain

/// ``CategoryRepository`` over the `categories` table.
public struct PostgresCategoryRepository: CategoryRepository {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func allCategories() async throws -> [Category] {
        try await pool.withConnection { connection in
            try connection.query("SELECT id, name FROM categories ORDER BY sort_order, id").map { row in
                Category(id: CategoryID(rawValue: try row.decode(0)), name: try row.decode(1))
            }
        }
    }
}
