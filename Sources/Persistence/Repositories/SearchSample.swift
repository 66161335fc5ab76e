import PostgresDriver

/// How many posts match a search, estimated from a sixteenth of them: those whose hashed id
/// ends in four zero bits, which `posts_search_sample` (migration 0042) indexes.
///
/// A term longer than one gram has no frequency of its own in the statistics, only its
/// rarest gram's, which bounds it: `크림 12` on 10 M posts is in 3,461 posts, its rarest
/// gram in ~3 %. Counting the term's matches in the sample costs a sixteenth of counting
/// them all (`그래놀라`, 153,896 matches: 15 ms against 1.5 s) and, from 400 sampled
/// matches, errs by 5 % at most (one standard error of a count of 400 is 20).
enum SearchSample {
    /// The sample's share of posts is one in `modulus`; the index's predicate says so too.
    static let modulus = 16
    /// The fewest sampled matches an estimate is made from; below, matches are counted.
    static let minimum = 400

    /// The posts matching `sql`'s conditions, estimated from the sample, or `nil` when
    /// fewer than ``minimum`` of them are in it: then there are few enough to count (at most
    /// ~6,400 and then some).
    static func estimate(_ sql: FeedSQL, _ connection: PostgresConnection) throws -> Int? {
        let sampled: Int = try PostgresFeedRepository.throughIndexes(connection) {
            try $0.queryPlannedForValues("""
                SELECT count(*)::int FROM posts p WHERE \(predicate)\(sql.matchedConditions.andClause)
                """).single().decode(0)
        }
        return sampled >= minimum ? sampled * modulus : nil
    }

    /// The sample index's predicate, written as the index states it (PostgreSQL proves a
    /// partial index usable only from the same expression).
    static var predicate: SQL { "(hashint8(p.id) & \(raw: modulus - 1)) = 0" }
}
