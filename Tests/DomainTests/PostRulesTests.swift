import Domain
import Foundation
import Testing

/// The post rules as an import row meets them (every broken rule named) and as the API
/// does (the first).
@Suite struct PostRulesTests {
    private func post(name: String, price: Int?, start: Date, end: Date, displayURL: String?) -> NewPost {
        NewPost(influencerID: InfluencerID(rawValue: 1), productName: name, price: price, category: CategoryID(rawValue: "beauty"),
                groupBuyingStart: start, groupBuyingEnd: end, displayURL: displayURL, groupBuyingURL: nil)
    }

    @Test func everyBrokenRuleIsRecordedInOrderAndTheAPIGetsTheFirst() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let broken = post(name: "  ", price: -1, start: now, end: now.addingTimeInterval(-60), displayURL: "ftp://x")
        var check = RuleCheck()
        _ = PostRules.checked(broken, &check)
        let fields = check.failures.map { failure -> String? in
            if case .invalid(let field, _) = failure { return field }
            return nil
        }
        #expect(fields == ["product_name", "price", "group_buying_end", "display_url"])
        #expect(throws: DomainError.self) { try PostRules.validated(broken) }
        do {
            _ = try PostRules.validated(broken)
        } catch DomainError.invalid(let field, _) {
            #expect(field == "product_name")
        }
    }

    @Test func aPostThatKeepsEveryRulePassesUnchangedButTrimmed() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var check = RuleCheck()
        let checked = PostRules.checked(post(name: " 크림 ", price: 12_000, start: now, end: now.addingTimeInterval(3_600),
                                             displayURL: "https://cdn.example/a.jpg"), &check)
        #expect(check.failures.isEmpty)
        #expect(checked.productName == "크림" && checked.price == 12_000)
    }
}
