import Domain

/// `GET /v1/categories`: the category chips.
struct CategoriesController: Sendable {
    let listCategories: ListCategories

    var routes: [Route] {
        [Route("GET", "/categories") { _ in try await list() }]
    }

    private func list() async throws -> HTTPResponse {
        let categories = try await listCategories.execute()
        return try .json(CategoryListResponse(data: categories.map(CategoryResponse.init)))
    }
}

/// Wire form of a category.
struct CategoryResponse: Codable, Equatable {
    let id: String
    let name: String

    init(_ category: Category) {
        id = category.id.rawValue
        name = category.name
    }
}

/// `{"data": [...]}`.
struct CategoryListResponse: Codable, Equatable {
    let data: [CategoryResponse]
}
