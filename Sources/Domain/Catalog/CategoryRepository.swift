/// Reads the fixed set of categories.
public protocol CategoryRepository: RequestScoped {
    /// Every category, in the order the app shows its chips.
    func allCategories() async throws -> [Category]
}
