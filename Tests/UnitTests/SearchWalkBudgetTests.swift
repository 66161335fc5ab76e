@testable import Persistence
import Testing

/// How far and how long a search walks its order before it falls back to reading every
/// match through the gram index (`PostgresFeedRepository.walkBound`, `walkTimeoutMilliseconds`).
@Suite struct SearchWalkBudgetTests {
    private typealias Repository = PostgresFeedRepository

    /// A rare term reads through the index: walking would cost more than its matches.
    @Test func aRareTermDoesNotWalk() {
        #expect(Repository.walkBound(reach: 1_001, (fraction: 0.001, posts: 1_000_000)) == nil)
    }

    /// Four times the expected walk, at most 20,000 rows while the matches are few.
    @Test func aCommonTermWalksFourTimesTheExpectedRows() {
        // 1,001 rows at 30 %: ~3.3 k expected.
        #expect(Repository.walkBound(reach: 1_001, (fraction: 0.3, posts: 1_000_000)) == 13_346)
        // 1,001 rows at 3 % of 1 M posts: ~33 k expected, 30 k matches: the index.
        #expect(Repository.walkBound(reach: 1_001, (fraction: 0.03, posts: 1_000_000)) == nil)
        // At 5.8 % of 1 M posts: ~17 k expected, 58 k matches: 20 k rows before the index.
        #expect(Repository.walkBound(reach: 1_001, (fraction: 0.058, posts: 1_000_000)) == 20_000)
    }

    /// `search=그+&sort=popular&page=50` on 10 M posts: ~3 % (~300 k matches), ~33 k rows to
    /// walk. A flat 20,000-row budget gave up before the page was found and read every match
    /// into the statement timeout; the budget now reaches a third of the matches.
    @Test func theBudgetGrowsWithTheMatchesItWouldFallBackTo() {
        let budget = Repository.walkBound(reach: 1_001, (fraction: 0.03, posts: 10_000_000))
        #expect(budget == 100_000)
        #expect(budget.map { $0 > 33_367 } == true)
    }

    /// 10 µs a row, between 150 ms and a second.
    @Test func aWalkMayRunTenMicrosecondsARow() {
        #expect(Repository.walkTimeoutMilliseconds(rows: 1_000) == 150)
        #expect(Repository.walkTimeoutMilliseconds(rows: 20_000) == 200)
        #expect(Repository.walkTimeoutMilliseconds(rows: 53_000) == 530)
        #expect(Repository.walkTimeoutMilliseconds(rows: 300_000) == 1_000)
    }
}
