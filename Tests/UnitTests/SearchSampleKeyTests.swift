import Domain
import Foundation
@testable import Persistence
import Testing

/// What a kept sample estimate is shared by (`SearchSample.Key`), and how a plan's total past
/// the bound is estimated (`PostgresFeedRepository.SearchPlan`).
@Suite struct SearchSampleKeyTests {
    private static func query(_ search: String) -> FeedQuery {
        var query = FeedQuery()
        query.search = search
        return query
    }

    /// The order and the page do not change what matches: one estimate serves them all.
    @Test func theOrderAndThePageShareAnEstimate() {
        var deep = Self.query("크림 12")
        deep.sort = .popular
        deep.page = 50
        deep.limit = 50
        deep.cursor = FeedCursor(sort: .popular, key: 3, id: 7)
        #expect(SearchSample.Key(deep) == SearchSample.Key(Self.query("크림 12")))
    }

    /// Every filter changes what matches, and so the key.
    @Test func everyFilterHasItsOwnEstimate() {
        let plain = SearchSample.Key(Self.query("크림 12"))
        var category = Self.query("크림 12")
        category.category = CategoryID(rawValue: "beauty")
        var dates = Self.query("크림 12")
        let day = KoreaDay(containing: Date(timeIntervalSince1970: 1_796_191_200))
        dates.dateRange = day...day.next
        var status = Self.query("크림 12")
        status.status = .ongoing
        var influencer = Self.query("크림 12")
        influencer.influencer = InfluencerID(rawValue: 4)
        let keys = [plain, SearchSample.Key(Self.query("크림 13")), SearchSample.Key(category), SearchSample.Key(dates),
                    SearchSample.Key(status), SearchSample.Key(influencer)]
        #expect(Set(keys).count == keys.count)
    }

    /// Past the bound, the sample's estimate is the total; without one, a one-gram term's
    /// frequency times the posts under the other filters; a longer term without a sample is
    /// not estimated at all (its frequency is only a bound).
    @Test func aTotalPastTheBoundIsEstimatedFromTheSampleFirst() {
        var plan = PostgresFeedRepository.SearchPlan(read: .openFirst, fraction: 0.03, candidates: 1_000_000)
        #expect(!plan.estimates)
        plan.sampled = 3_552
        #expect(plan.estimates && plan.estimatedMatches == 3_552)
        let oneGram = PostgresFeedRepository.SearchPlan(read: .openFirst, fraction: 0.015, candidates: 200_000, fractionIsExact: true)
        #expect(oneGram.estimates && oneGram.estimatedMatches == 3_000)
    }
}
