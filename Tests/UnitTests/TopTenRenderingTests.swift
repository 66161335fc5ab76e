@testable import App
import Domain
import Foundation
import HTTPServer
import Testing

/// The Top 10 body spliced from kept pieces is byte for byte what encoding it whole gives.
@Suite struct TopTenRenderingTests {
    private func post(_ id: Int, name: String, price: Int?, likes: Int, liked: Bool, start: Date, end: Date) -> Post {
        Post(id: PostID(rawValue: id), productName: name, price: price, category: Category(id: CategoryID(rawValue: "food"), name: "푸드"),
             displayURL: id.isMultiple(of: 2) ? "https://img.example/\(id).jpg" : nil, groupBuyingURL: nil,
             groupBuyingStart: start, groupBuyingEnd: end, likesCount: likes, postedAt: start.addingTimeInterval(-3600),
             submittedBy: nil, influencer: InfluencerSummary(id: InfluencerID(rawValue: id * 10), username: "seller\(id)",
                                                              fullName: id == 3 ? nil : "판매자 \"\(id)\"", profilePicURL: nil, externalURL: nil),
             isLiked: liked)
    }

    @Test func splicedBodiesEqualWholeEncodingsThroughChangingCountsLikesRanksAndStatuses() {
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        let rendering = TopTenRendering()
        let names = [#"보통 상품"#, #"tricky ,"likes_count":0,"posted_at": and ,"is_liked":false"#, "줄\n바꿈\t탭 \u{1}", "", "이모지 🍜"]
        func ranked(_ likes: Int, liked: Bool, order: [Int], edited: Int? = nil) -> [Post] {
            order.map { id in
                post(id, name: names[id % names.count] + (id == edited ? " (수정)" : ""), price: id == 1 ? nil : id * 1000, likes: likes + id, liked: liked && id.isMultiple(of: 2),
                     start: now.addingTimeInterval(Double(id - 3) * 3600), end: now.addingTimeInterval(Double(id) * 86_400 + 1800))
            }
        }
        func whole(_ posts: [Post], _ at: Date) -> Data {
            JSONWriter.encode(PostListResponse(data: posts.enumerated().map { PostResponse(post: $1, now: at, rank: $0 + 1) }))
        }
        for (posts, at) in [
            (ranked(5, liked: false, order: [1, 2, 3, 4, 5]), now),
            (ranked(5, liked: false, order: [1, 2, 3, 4, 5]), now),              // every piece kept
            (ranked(5, liked: false, order: [1, 2, 3, 4, 5], edited: 4), now),   // one post edited
            (ranked(5, liked: false, order: [1, 2, 3, 4, 5]), now),              // and back
            (ranked(5, liked: false, order: [1, 2, 3, 4]), now),                 // one gone
            (ranked(1_234_567, liked: true, order: [1, 2, 3, 4, 5]), now),       // fresh counts and likes
            (ranked(9, liked: true, order: [5, 3, 1, 4, 2]), now),               // new ranks
            (ranked(9, liked: false, order: [5, 3, 1, 4, 2]), now.addingTimeInterval(3 * 3600)),  // statuses moved on
            ([], now),
        ] {
            #expect(rendering.body(posts, now: at) == whole(posts, at))
        }
        // Each category keeps its own ranking: alternating between two renders each right.
        let food = ranked(3, liked: true, order: [2, 4]), other = ranked(3, liked: true, order: [4, 2])
        for _ in 0..<2 {
            #expect(rendering.body(food, category: "food", now: now) == whole(food, now))
            #expect(rendering.body(other, category: "pets", now: now) == whole(other, now))
        }
    }
}
