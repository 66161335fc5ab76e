import Domain
import Foundation
import HTTPServer
import Synchronization

/// The Top 10 body, built from each ranked post's JSON kept between requests with its two
/// per-request fields (`likes_count`, `is_liked`) spliced in.
///
/// The ten posts are the same for everyone for 10 s (the repository keeps them); encoding
/// them was ~17 % of a Top 10 request's server CPU (perf). A post's pieces are reused while
/// the post, its rank and its status are unchanged, so the bytes are exactly what
/// `PostListResponse` would write (a test compares them).
final class TopTenRendering: Sendable {
    private struct Pieces {
        /// The post as encoded, with the two per-request fields at 0 and false.
        let post: Post
        let rank: Int
        let status: PostStatus
        /// `{…"likes_count":`, then `,"posted_at":…,"is_liked":`, then `,"rank":…}`.
        let head: [UInt8]
        let middle: [UInt8]
        let tail: [UInt8]
    }

    private let pieces = Mutex<[Int: Pieces]>([:])

    /// `{"data":[…]}` for `ranked` (in rank order) at `now`.
    func body(_ ranked: [Post], now: Date) -> Data {
        var bytes: [UInt8] = Array("{\"data\":[".utf8)
        bytes.reserveCapacity(ranked.count * 600)
        for (index, post) in ranked.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            let piece = pieces(for: post, rank: index + 1, now: now)
            bytes.append(contentsOf: piece.head)
            bytes.append(contentsOf: String(post.likesCount).utf8)
            bytes.append(contentsOf: piece.middle)
            bytes.append(contentsOf: (post.isLiked ? "true" : "false").utf8)
            bytes.append(contentsOf: piece.tail)
        }
        bytes.append(contentsOf: "]}".utf8)
        return Data(bytes)
    }

    private func pieces(for post: Post, rank: Int, now: Date) -> Pieces {
        let plain = post.seen(likesCount: 0, isLiked: false)
        let status = PostStatus(start: post.groupBuyingStart, end: post.groupBuyingEnd, now: now)
        if let kept = pieces.withLock({ $0[post.id.rawValue] }), kept.rank == rank, kept.status == status, kept.post == plain {
            return kept
        }
        let encoded = Array(JSONWriter.encode(PostResponse(post: plain, now: now, rank: rank)))
        // JSON escapes every quote inside a string, so these can only be the fields themselves.
        let likesKey = Array(#","likes_count":"#.utf8), likedKey = Array(#","is_liked":"#.utf8)
        guard let likes = encoded.firstRange(of: likesKey + Array("0,".utf8)),
              let liked = encoded.firstRange(of: likedKey + Array("false".utf8)) else {
            preconditionFailure("PostResponse no longer writes likes_count and is_liked")
        }
        let likesValue = likes.lowerBound + likesKey.count, likedValue = liked.lowerBound + likedKey.count
        let made = Pieces(post: plain, rank: rank, status: status, head: Array(encoded[..<likesValue]),
                          middle: Array(encoded[(likesValue + 1)..<likedValue]), tail: Array(encoded[(likedValue + 5)...]))
        pieces.withLock { kept in
            if kept.count > 256 { kept.removeAll() }  // ranked posts come and go; a bound, not an LRU
            kept[post.id.rawValue] = made
        }
        return made
    }
}
