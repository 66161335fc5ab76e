import Foundation
import PostgresDriver
import Synchronization

/// How often each search gram occurs in posts, from PostgreSQL's own statistics (the most
/// common elements ANALYZE keeps for `posts.search_grams`), to choose how a search reads.
///
/// The planner estimates a term of several grams as if its grams were independent: the
/// five bigrams of 에어프라이어, each in ~1.5 % of posts, multiply to a few posts, so it
/// reads all ~15 k matches through the index and sorts them (112 ms) where walking the
/// requested order finds a page in ~1,300 rows. A substring is about as frequent as its
/// rarest gram, which is the estimate used here.
final class SearchStatistics: Sendable {
    /// A gram frequency table and when it was read.
    private struct Snapshot {
        var loaded: ContinuousClock.Instant
        /// Fraction of posts holding each common gram.
        var frequencies: [Int32: Double]
        /// Upper bound for a gram not in the table (the least common one listed).
        var rare: Double
        /// Posts in the table (an estimate).
        var posts: Double
    }

    private static let maximumAge = Duration.seconds(600)
    private let snapshot = Mutex<Snapshot?>(nil)

    /// What is known of a search term: its estimated frequency among posts (its rarest
    /// gram's), the number of posts, whether it is a single gram (one character, or two of
    /// the BMP), whose frequency the statistics know rather than bound, and the grams to ask
    /// the index for (see ``probe(_:frequency:posts:)``); `probe` is `nil` for a term without
    /// grams, which matches nothing.
    struct Term {
        let fraction: Double
        let posts: Double
        let isOneGram: Bool
        let probe: [Int32]?
        /// Whether `fraction` is the term's own: one gram the statistics list (otherwise it
        /// is a bound: a longer term's rarest gram's, or the least listed frequency).
        var fractionIsExact = false
    }

    func estimate(_ term: String, _ connection: PostgresConnection) throws -> Term {
        let text = try connection.query("SELECT search_term_grams(\(term))::text").single().decode(0, as: String?.self)
        let grams = text.map { Self.numbers($0).compactMap { Int32($0) } } ?? []
        let now = ContinuousClock.now
        var current = snapshot.withLock { $0 }
        if current == nil || now - current!.loaded > Self.maximumAge {
            let loaded = try Self.load(connection, at: now)
            snapshot.withLock { $0 = loaded }
            current = loaded
        }
        let table = current!
        let frequency = { (gram: Int32) in table.frequencies[gram] ?? table.rare }
        let isOneGram = grams.count == 1 && term.unicodeScalars.count <= 2
        return Term(fraction: grams.map(frequency).min() ?? 0, posts: table.posts, isOneGram: isOneGram,
                    probe: grams.isEmpty ? nil : Self.probe(grams, frequency: frequency, posts: table.posts),
                    fractionIsExact: isOneGram && table.frequencies[grams[0]] != nil)
    }

    /// The grams a term asks the gram index for: its rarest, then the next rarest while the
    /// posts holding all taken are estimated at 20 or more (as if independent), at most four.
    /// The index reads each gram's whole posting list, so a term's common grams cost more
    /// than the candidates they remove, which LIKE rechecks anyway: `hajun927` asked for all
    /// seven bigrams read ~820 k postings (21.5 ms on 1 M posts) for 137 candidates; its four
    /// rarest give the same 137 in 7.3 ms, its rarest alone 27 k candidates to recheck.
    static func probe(_ grams: [Int32], frequency: (Int32) -> Double, posts: Double) -> [Int32] {
        var taken: [Int32] = [], candidates = posts
        for gram in grams.sorted(by: { (frequency($0), $0) < (frequency($1), $1) }) {
            guard taken.count < 4, taken.isEmpty || candidates >= 20 else { break }
            taken.append(gram)
            candidates *= frequency(gram)
        }
        return taken
    }

    private static func load(_ connection: PostgresConnection, at now: ContinuousClock.Instant) throws -> Snapshot {
        // most_common_elem_freqs: one frequency per element, then the minimum, the maximum
        // and the frequency of NULL elements.
        let rows = try connection.query("""
            SELECT s.most_common_elems::text, s.most_common_elem_freqs::text, greatest(c.reltuples, 1)::float8
            FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'posts' AND s.attname = 'search_grams'
            WHERE c.oid = 'posts'::regclass
            """)
        guard let row = rows.first else { return Snapshot(loaded: now, frequencies: [:], rare: 1, posts: 1) }
        let elements = (try row.decode(0, as: String?.self)).map { Self.numbers($0).compactMap { Int32($0) } } ?? []
        let frequencies = (try row.decode(1, as: String?.self)).map { Self.numbers($0).compactMap { Double($0) } } ?? []
        guard !elements.isEmpty, frequencies.count >= elements.count + 1 else {
            // Not analysed yet: every gram may be common, so every search walks its order.
            return Snapshot(loaded: now, frequencies: [:], rare: 1, posts: try row.decode(2))
        }
        return Snapshot(loaded: now, frequencies: Dictionary(zip(elements, frequencies), uniquingKeysWith: max),
                        rare: frequencies[elements.count], posts: try row.decode(2))
    }

    /// The numbers of a PostgreSQL array literal such as `{1,-2,3.5e-05}`.
    private static func numbers(_ literal: String) -> [Substring] {
        literal.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",")
    }
}
