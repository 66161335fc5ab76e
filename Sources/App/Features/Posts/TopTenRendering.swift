import Domain
import Foundation
import HTTPServer
import Synchronization

/// The Top 10 body, built from each ranked post's JSON kept between requests with its two
/// per-request fields (`likes_count`, `is_liked`) spliced in.
///
/// The ten posts are the same for everyone for 10 s (the repository keeps them); encoding
/// them was ~17 % of a Top 10 request's server CPU (perf). A ranking's pieces are reused
/// while its posts, their ranks and their statuses are unchanged, so the bytes are exactly
/// what `PostListResponse` would write (a test compares them).
///
/// The pieces are kept per category as one ranking, taken with one lock a request: kept per
/// post, the ten lookups' locks were 7 % of a Top 10 request's server CPU, most of it
/// threads spinning on each other (perf).
final class TopTenRendering: Sendable {
    /// A class: each request reads ten of them, and a struct's copy retained each of its
    /// post's strings (a copy of `Pieces` was 3.5 % of a Top 10 request's server CPU).
    private final class Pieces: Sendable {
        /// The post as encoded (its two per-request fields written as 0 and false).
        let post: Post
        let status: PostStatus
        /// `{…"likes_count":`, then `,"posted_at":…,"is_liked":`, then `,"rank":…}`.
        let head: [UInt8]
        let middle: [UInt8]
        let tail: [UInt8]

        init(post: Post, status: PostStatus, head: [UInt8], middle: [UInt8], tail: [UInt8]) {
            (self.post, self.status, self.head, self.middle, self.tail) = (post, status, head, middle, tail)
        }
    }

    /// One category's ranking as last rendered, in rank order.
    private final class Ranking: Sendable {
        let pieces: [Pieces]
        init(_ pieces: [Pieces]) { self.pieces = pieces }
    }

    private let rankings = Mutex<[String: Ranking]>([:])

    /// `{"data":[…]}` for `ranked` (in rank order) in `category` ("" for all) at `now`.
    func body(_ ranked: [Post], category: String = "", now: Date) -> Data {
        let pieces = ranking(for: ranked, category: category, now: now).pieces
        var bytes: [UInt8] = Array("{\"data\":[".utf8)
        bytes.reserveCapacity(ranked.count * 600)
        for (index, post) in ranked.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            let piece = pieces[index]
            bytes.append(contentsOf: piece.head)
            bytes.append(contentsOf: String(post.likesCount).utf8)
            bytes.append(contentsOf: piece.middle)
            bytes.append(contentsOf: (post.isLiked ? "true" : "false").utf8)
            bytes.append(contentsOf: piece.tail)
        }
        bytes.append(contentsOf: "]}".utf8)
        return Data(bytes)
    }

    /// The kept ranking when it is still `ranked` at `now`, else one made from it (each
    /// post's pieces reused where that post kept its rank, content and status).
    private func ranking(for ranked: [Post], category: String, now: Date) -> Ranking {
        let kept = rankings.withLock { $0[category] }
        let statuses = ranked.map { PostStatus(start: $0.groupBuyingStart, end: $0.groupBuyingEnd, now: now) }
        func keptPiece(_ index: Int) -> Pieces? {
            guard let kept, index < kept.pieces.count else { return nil }
            let piece = kept.pieces[index]
            let post = ranked[index]
            guard piece.status == statuses[index], piece.post.isSameListing(as: post) else { return nil }
            return piece
        }
        if let kept, kept.pieces.count == ranked.count, ranked.indices.allSatisfy({ keptPiece($0) != nil }) {
            return kept
        }
        let made = Ranking(ranked.indices.map { keptPiece($0) ?? Self.pieces(for: ranked[$0], rank: $0 + 1, status: statuses[$0], now: now) })
        rankings.withLock { rankings in
            if rankings.count > 64, rankings[category] == nil { rankings.removeAll() }  // categories are few; a bound, not an LRU
            rankings[category] = made
        }
        return made
    }

    private static func pieces(for post: Post, rank: Int, status: PostStatus, now: Date) -> Pieces {
        let plain = post.seen(likesCount: 0, isLiked: false)
        let encoded = Array(JSONWriter.encode(PostResponse(post: plain, now: now, rank: rank)))
        // JSON escapes every quote inside a string, so these can only be the fields themselves.
        let likesKey = Array(#","likes_count":"#.utf8), likedKey = Array(#","is_liked":"#.utf8)
        guard let likes = encoded.firstRange(of: likesKey + Array("0,".utf8)),
              let liked = encoded.firstRange(of: likedKey + Array("false".utf8)) else {
            preconditionFailure("PostResponse no longer writes likes_count and is_liked")
        }
        let likesValue = likes.lowerBound + likesKey.count, likedValue = liked.lowerBound + likedKey.count
        return Pieces(post: post, status: status, head: Array(encoded[..<likesValue]),
                      middle: Array(encoded[(likesValue + 1)..<likedValue]), tail: Array(encoded[(likedValue + 5)...]))
    }
}
