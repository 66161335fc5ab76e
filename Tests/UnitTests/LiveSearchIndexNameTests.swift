import Foundation
@testable import Persistence
import Testing

/// The live posts' gram index carries its cutoff in its name: the job drops every index of
/// that family but the newest, so a name it misreads would cost an index it should keep,
/// or keep one it should drop.
@Suite struct LiveSearchIndexNameTests {
    /// 2026-12-05 12:00 UTC.
    private static let noon = Date(timeIntervalSince1970: 1_796_472_000)

    @Test func aNewIndexReachesBackSevenDaysToMidnightUTC() {
        let cutoff = LiveSearchIndex.cutoff(at: Self.noon)
        #expect(cutoff == Date(timeIntervalSince1970: 1_795_824_000))  // 2026-11-28 00:00 UTC
        #expect(LiveSearchIndex.name(cutoff: cutoff) == "posts_search_live_20261128")
        // Just after midnight UTC, the cutoff moves by a day.
        #expect(LiveSearchIndex.cutoff(at: Date(timeIntervalSince1970: 1_796_428_801)) == Date(timeIntervalSince1970: 1_795_824_000))
        #expect(LiveSearchIndex.cutoff(at: Date(timeIntervalSince1970: 1_796_428_799)) == Date(timeIntervalSince1970: 1_795_737_600))
    }

    @Test func theNameGivesBackItsCutoff() {
        #expect(LiveSearchIndex.cutoff(name: "posts_search_live_20261128") == Date(timeIntervalSince1970: 1_795_824_000))
        #expect(LiveSearchIndex.cutoff(name: "posts_search_live_20270101") == Date(timeIntervalSince1970: 1_798_761_600))
    }

    /// Only names the job itself would have made: another index whose name merely starts the
    /// same way is not the job's to drop.
    @Test func otherNamesAreNotTheJobs() {
        for name in ["posts_search_live_2026112", "posts_search_live_202611280", "posts_search_live_20261340", "posts_search_live_2026-1-28",
                     "posts_search_live_", "posts_search_grams_category", "posts_search_live_20261128_old", "posts_search_live_２０２６１１２８"] {
            #expect(LiveSearchIndex.cutoff(name: name) == nil, "\(name)")
        }
    }
}
