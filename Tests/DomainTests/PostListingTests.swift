import Domain
import Foundation
import Testing

/// `Post.isSameListing(as:)` is `==` but for the two per-viewer fields.
@Suite struct PostListingTests {
    private static let start = Date(timeIntervalSince1970: 1_796_000_000)

    private func post(id: Int = 1, name: String = "상품", price: Int? = 1000, category: String = "food", display: String? = "https://i/1.jpg",
                      buy: String? = nil, start: Date = start, end: Date = start + 86_400, posted: Date = start - 60,
                      by: UserID? = nil, seller: String = "seller", details: PostDetails = PostDetails()) -> Post {
        Post(id: PostID(rawValue: id), productName: name, price: price, category: Category(id: CategoryID(rawValue: category), name: "푸드"),
             displayURL: display, groupBuyingURL: buy, groupBuyingStart: start, groupBuyingEnd: end, likesCount: 5, postedAt: posted,
             submittedBy: by, influencer: InfluencerSummary(id: InfluencerID(rawValue: 7), username: seller, fullName: nil,
                                                           profilePicURL: nil, externalURL: nil),
             isLiked: false, details: details)
    }

    @Test func onlyTheLikeCountAndTheViewersLikeAreIgnored() {
        let base = post()
        #expect(base.isSameListing(as: base.seen(likesCount: 1_000, isLiked: true)))
        let others = [
            post(id: 2), post(name: "다른 상품"), post(price: nil), post(category: "pets"), post(display: nil), post(buy: "https://b"),
            post(start: Self.start + 1), post(end: Self.start), post(posted: Self.start), post(by: UserID(rawValue: UUID())),
            post(seller: "other"), post(details: PostDetails(hashtags: ["맛집"])),
            { var hidden = post(); hidden.hidden = true; return hidden }(),
        ]
        for other in others {
            #expect(!base.isSameListing(as: other) && !other.isSameListing(as: base), "\(other)")
        }
        // A field added to Post must be added to isSameListing (and a case above).
        #expect(Mirror(reflecting: base).children.compactMap(\.label) == [
            "id", "productName", "price", "category", "displayURL", "groupBuyingURL", "groupBuyingStart", "groupBuyingEnd",
            "likesCount", "postedAt", "submittedBy", "influencer", "isLiked", "details", "hidden",
        ])
    }
}
