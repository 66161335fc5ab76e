/// Reads the fixed set of categories.
public protocol CategoryRepository: Sendable {
    /// Every category, in the order the app shows its chips.
    func allCategories() async throws -> [Category]
}
