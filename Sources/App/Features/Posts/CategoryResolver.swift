import Domain
import HTTPServer
import Synchronization

/// Resolves a category given by ASCII id or Korean name. Categories change only with a
/// migration, so they are read once per process.
public final class CategoryResolver: Sendable {
    private let categories: any CategoryRepository
    private let cache = Mutex<[Category]?>(nil)

    public init(categories: any CategoryRepository) {
        self.categories = categories
    }

    /// The category `text` names, or 400 naming `field`.
    public func resolve(_ text: String, field: String = "category") async throws -> CategoryID {
        let all = try await all()
        guard let category = all.first(where: { $0.id.rawValue == text || $0.name == text }) else {
            throw APIError.invalidParameter(field, "\(field) must be one of \(all.map(\.id.rawValue).joined(separator: ", ")) or their Korean names")
        }
        return category.id
    }

    /// Every category, in the catalogue's order.
    func all() async throws -> [Category] {
        if let cached = cache.withLock({ $0 }) { return cached }
        let all = try await ListCategories(categories: categories).execute()
        cache.withLock { $0 = all }
        return all
    }
}
