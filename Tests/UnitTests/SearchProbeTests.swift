@testable import Persistence
import Testing

/// Which grams a search asks the gram index for (`SearchStatistics.probe`): its rarest
/// first, while they narrow the candidates, at most four; every match holds them all.
@Suite struct SearchProbeTests {
    private static let frequencies: [Int32: Double] = [1: 0.25, 2: 0.19, 3: 0.12, 4: 0.10, 5: 0.075, 6: 0.062, 7: 0.027]

    private static func probe(_ grams: [Int32], posts: Double = 1_000_000) -> [Int32] {
        SearchStatistics.probe(grams, frequency: { frequencies[$0] ?? 0.001 }, posts: posts)
    }

    /// `hajun927`'s seven bigrams on the bench's 1 M posts: the four rarest (~12 posts
    /// estimated with all four; the index read 137 candidates for them, as for all seven).
    @Test func takesTheRarestGramsUntilFewPostsHoldThemAll() {
        #expect(Self.probe([1, 2, 3, 4, 5, 6, 7]) == [7, 6, 5, 4])
        // Fewer posts: three already leave fewer than 20 candidates.
        #expect(Self.probe([1, 2, 3, 4, 5, 6, 7], posts: 100_000) == [7, 6, 5])
        // A gram the statistics do not list is rarer than any they do: it goes first.
        #expect(Self.probe([1, 99, 2]) == [99, 2, 1])
    }

    @Test func aOneGramTermAsksForItsGram() {
        #expect(Self.probe([3]) == [3])
        #expect(Self.probe([99]) == [99])
    }

    /// At most four, however common: each gram read costs its whole posting list.
    @Test func neverMoreThanFour() {
        let common: [Int32] = [1, 1, 2, 2, 1, 2].enumerated().map { Int32($0.offset + 1) }
        #expect(Self.probe(common, posts: 1e12).count == 4)
    }
}
