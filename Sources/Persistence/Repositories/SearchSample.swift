import Domain
import PostgresDriver
import Synchronization

/// How many posts match a search, estimated from a sixteenth of them: those whose hashed id
/// ends in four zero bits, which `posts_search_sample` (migration 0042) indexes.
///
/// A term longer than one gram has no frequency of its own in the statistics, only its
/// rarest gram's, which bounds it: `크림 12` on 10 M posts is in 3,461 posts, its rarest
/// gram in ~3 %. Counting the term's matches in the sample costs a sixteenth of counting
/// them all (`그래놀라`, 153,896 matches: 15 ms against 1.5 s) and, from 400 sampled
/// matches, errs by 5 % at most (one standard error of a count of 400 is 20).
///
/// Estimates are kept for a minute per search and filters, as the statistics are kept for
/// ten (``SearchStatistics``): they choose how a search reads and, past 1,000 matches, give
/// its flagged total; a minute of new posts moves neither by much, and the reads they
/// choose count exactly or walk whatever is there. Sampling costs a statement (~1 ms of
/// PostgreSQL), 10–15 % of a rare term's whole request on 1 M posts.
final class SearchSample: Sendable {
    /// The sample's share of posts is one in `modulus`; the index's predicate says so too.
    static let modulus = 16
    /// The fewest sampled matches an estimate is made from; below, matches are counted.
    static let minimum = 400
    /// How long an estimate is kept, and how many are (a full table is emptied).
    static let maximumAge = Duration.seconds(60)
    static let capacity = 2_048

    /// What a sample counts: the search and every filter but the order and the page.
    struct Key: Hashable {
        let search: String
        let category: CategoryID?
        let from: KoreaDay?
        let through: KoreaDay?
        let status: String?
        let influencer: InfluencerID?

        init(_ query: FeedQuery) {
            search = query.search ?? ""
            category = query.category
            from = query.dateRange?.lowerBound
            through = query.dateRange?.upperBound
            status = query.status?.rawValue
            influencer = query.influencer
        }
    }

    private let kept = Mutex<[Key: (at: ContinuousClock.Instant, estimate: Int?)]>([:])

    /// The posts matching `sql`'s conditions (those of `query`), estimated from the sample,
    /// or `nil` when fewer than ``minimum`` of them are in it: then there are few enough to
    /// count (at most ~6,400 and then some).
    func estimate(_ query: FeedQuery, _ sql: FeedSQL, _ connection: PostgresConnection) throws -> Int? {
        let key = Key(query), now = ContinuousClock.now
        if let hit = kept.withLock({ $0[key] }), now - hit.at < Self.maximumAge { return hit.estimate }
        let estimate = try Self.estimate(sql, connection)
        kept.withLock { table in
            if table.count >= Self.capacity {
                table = table.filter { now - $0.value.at < Self.maximumAge }
                if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            }
            table[key] = (now, estimate)
        }
        return estimate
    }

    /// ``estimate(_:_:_:)`` read now.
    static func estimate(_ sql: FeedSQL, _ connection: PostgresConnection) throws -> Int? {
        var inSample = sql
        inSample.where(predicate)
        let sampled = try PostgresFeedRepository.searchCount(inSample, bound: nil, connection)
        return sampled >= minimum ? sampled * modulus : nil
    }

    /// The sample index's predicate, written as the index states it (PostgreSQL proves a
    /// partial index usable only from the same expression).
    static var predicate: SQL { "(hashint8(p.id) & \(raw: modulus - 1)) = 0" }
}
