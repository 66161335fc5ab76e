import Domain
import Fakes
import Testing

@Suite struct ListCategoriesTests {
    @Test func returnsTheRepositoryCategoriesInOrder() async throws {
        let categories = [Category(id: CategoryID(rawValue: "food"), name: "푸드"), Category(id: CategoryID(rawValue: "beauty"), name: "뷰티")]
        let repository = InMemoryCategoryRepository(categories)

        let listed = try await ListCategories(categories: repository).execute()

        #expect(listed == categories)
        #expect(await repository.calls == 1)
    }

    @Test func anEmptyCatalogIsReportedAsUnavailable() async throws {
        let useCase = ListCategories(categories: InMemoryCategoryRepository([]))

        await #expect(throws: DomainError.unavailable("no categories are configured")) {
            try await useCase.execute()
        }
    }

    @Test func repositoryErrorsPropagateUnchanged() async throws {
        let useCase = ListCategories(categories: FailingCategoryRepository(DomainError.notFound("category")))

        await #expect(throws: DomainError.notFound("category")) {
            try await useCase.execute()
        }
    }
}
