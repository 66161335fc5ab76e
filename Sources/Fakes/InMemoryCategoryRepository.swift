import Domain

/// A ``CategoryRepository`` holding a fixed list, for Domain and handler unit tests.
public actor InMemoryCategoryRepository: CategoryRepository {
    private let categories: [Category]
    /// How many times ``allCategories()`` was called.
    public private(set) var calls = 0

    /// Creates the repository with `categories` in display order.
    public init(_ categories: [Category]) {
        self.categories = categories
    }

    public nonisolated func scoped(_ scope: RequestScope) -> InMemoryCategoryRepository { self }

    public func allCategories() async throws -> [Category] {
        calls += 1
        return categories
    }
}

/// A ``CategoryRepository`` that always throws `error`, for failure paths.
public struct FailingCategoryRepository: CategoryRepository {
    private let error: any Error
    public init(_ error: any Error) { self.error = error }
    public func scoped(_ scope: RequestScope) -> Self { self }
    public func allCategories() async throws -> [Category] { throw error }
}

/// The 13 categories of the client contract, in chip order.
public let contractCategories: [(id: String, name: String)] = [
    ("beauty", "뷰티"), ("food", "푸드"), ("fashion", "패션"), ("living", "리빙"), ("kids", "키즈"),
    ("electronics", "가전"), ("travel", "여행"), ("pet", "반려동물"), ("fitness", "운동/건강"),
    ("education", "교육/도서"), ("stationery", "문구/취미"), ("camping", "캠핑/레저"), ("automotive", "차량용품"),
]
