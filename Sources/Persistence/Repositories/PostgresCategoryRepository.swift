import Domain
import PostgresDriver

/// ``CategoryRepository`` over the `categories` table.
public struct PostgresCategoryRepository: CategoryRepository {
    /// A replica when one is healthy (categories change only by migration).
    private var reads: ScopedReads

    public init(pool: PostgresPool, reads: (any ReadPoolSource)? = nil) {
        self.reads = ScopedReads(reads ?? pool)
    }

    public func scoped(_ scope: RequestScope) -> PostgresCategoryRepository {
        var copy = self
        copy.reads = reads.scoped(scope)
        return copy
    }

    public func allCategories() async throws -> [Category] {
        try await reads.readPool().withConnection { connection in
            try connection.query("SELECT id, name FROM categories ORDER BY sort_order, id").map { row in
                Category(id: CategoryID(rawValue: try row.decode(0)), name: try row.decode(1))
            }
        }
    }
}
