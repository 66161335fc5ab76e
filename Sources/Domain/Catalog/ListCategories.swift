/// Use case: the categories a client shows as filter chips.
public struct ListCategories: Sendable {
    private let categories: any CategoryRepository

    public init(categories: any CategoryRepository) {
        self.categories = categories
    }

    /// Returns every category in display order.
    ///
    /// An empty list means the schema was never seeded, which is a deployment fault rather
    /// than a state a client should render, so it is reported as ``DomainError/unavailable(_:)``.
    public func execute() async throws -> [Category] {
        let all = try await categories.allCategories()
        guard !all.isEmpty else {
            throw DomainError.unavailable("no categories are configured")
        }
        return all
    }
}

extension ListCategories: RequestScoped {
    public func scoped(_ scope: RequestScope) -> ListCategories { ListCategories(categories: categories.scoped(scope)) }
}
