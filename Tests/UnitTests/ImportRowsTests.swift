@testable import App
import Domain
import Fakes
import Foundation
import Testing

/// An import row through the one post mapping (``PostInput``): every broken rule named by
/// its field, in words an operator reads.
@Suite struct ImportRowsTests {
    let categories = CategoryResolver(categories: InMemoryCategoryRepository(contractCategories.map { Category(id: CategoryID(rawValue: $0.id), name: $0.name) }))
    let now = Date(timeIntervalSince1970: 1_796_394_600)

    func row(_ changes: [String: String?]) -> ImportRecord {
        var fields = ["influencer_username": "kim.beauty", "product_name": "크림", "category": "뷰티", "price": "12000",
                      "group_buying_start": "2026-12-04T10:00:00+09:00", "group_buying_end": "2026-12-10T23:00:00+09:00",
                      "hashtags": "보습 #크림"]
        for (key, value) in changes { fields[key] = value }
        return ImportRecord(line: 7, fields: fields)
    }

    func reason(_ record: ImportRecord) async -> String? {
        do {
            _ = try await ImportRows.post(record, categories: categories, now: now)
            return nil
        } catch {
            return ImportRows.reject(.success(record), error).reason
        }
    }

    @Test func aGoodRowBecomesThePostItDescribes() async throws {
        let imported = try await ImportRows.post(row([:]), categories: categories, now: now)
        #expect(imported.influencerUsername == "kim.beauty" && imported.post.category.rawValue == "beauty" && imported.post.price == 12_000)
        #expect(imported.post.details.hashtags == ["보습", "크림"])
    }

    @Test func aDateThatIsNotOneIsReportedInWordsWithItsField() async {
        let text = await reason(row(["group_buying_end": "next friday"]))
        #expect(text?.hasPrefix("group_buying_end: group_buying_end must be an ISO 8601 date-time") == true, "\(text ?? "accepted")")
        #expect(text?.contains("APIError") == false, "a Swift value's description is not a reason")
    }

    @Test func everyBrokenRuleOfARowIsNamedAtOnce() async {
        let text = await reason(row(["influencer_username": "no spaces", "price": "free", "category": "weapons", "product_name": nil]))
        for field in ["influencer_username", "price", "category", "product_name"] {
            #expect(text?.contains(field) == true, "\(field) missing from: \(text ?? "accepted")")
        }
    }
}
