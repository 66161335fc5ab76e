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
        _ = PostRules.checked(broken, now: now, &check)
        let fields = check.failures.map { failure -> String? in
            if case .invalid(let field, _) = failure { return field }
            return nil
        }
        #expect(fields == ["product_name", "price", "group_buying_end", "display_url"])
        #expect(throws: DomainError.self) { try PostRules.validated(broken, now: now) }
        do {
            _ = try PostRules.validated(broken, now: now)
        } catch DomainError.invalid(let field, _) {
            #expect(field == "product_name")
        }
    }

    @Test func aPostThatKeepsEveryRulePassesUnchangedButTrimmed() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var check = RuleCheck()
        let checked = PostRules.checked(post(name: " 크림 ", price: 12_000, start: now, end: now.addingTimeInterval(3_600),
                                             displayURL: "https://cdn.example/a.jpg"), now: now, &check)
        #expect(check.failures.isEmpty)
        #expect(checked.productName == "크림" && checked.price == 12_000)
    }

    /// One set of times for every way in: when a source says it posted (Instagram's
    /// opening to now, give or take an hour of clock skew), and a window that starts within
    /// 366 days of it (of now when the source does not say).
    @Test func postedAtAndTheWindowsLeadAreBoundedForEveryDoor() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let day: TimeInterval = 86_400
        func failures(start: Date, postedAt: Date?) -> [String] {
            var post = post(name: "크림", price: nil, start: start, end: start.addingTimeInterval(day), displayURL: nil)
            post.details.postedAt = postedAt
            var check = RuleCheck()
            _ = PostRules.checked(post, now: now, &check)
            return check.failures.compactMap { if case .invalid(let field, _) = $0 { field } else { nil } }
        }
        let year9999 = Date(timeIntervalSince1970: 253_402_200_000), year1900 = Date(timeIntervalSince1970: -2_208_988_800)
        #expect(failures(start: now, postedAt: nil) == [])
        #expect(failures(start: now.addingTimeInterval(-300 * day), postedAt: now.addingTimeInterval(-310 * day)) == [])
        #expect(failures(start: year9999, postedAt: nil) == ["group_buying_start"])
        #expect(failures(start: now.addingTimeInterval(367 * day), postedAt: nil) == ["group_buying_start"])
        #expect(failures(start: year9999, postedAt: year9999) == ["posted_at"])
        #expect(failures(start: year1900, postedAt: year1900) == ["posted_at"])
        #expect(failures(start: now, postedAt: now.addingTimeInterval(3_500)) == [])
        #expect(failures(start: now, postedAt: now.addingTimeInterval(3_700)) == ["posted_at"])
        #expect(failures(start: now, postedAt: PostRules.earliestPostedAt) == ["group_buying_start"])
        #expect(failures(start: now, postedAt: PostRules.earliestPostedAt.addingTimeInterval(-1)) == ["posted_at"])
    }
}
