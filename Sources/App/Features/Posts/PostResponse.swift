import Domain
import Foundation

/// The wire form of a post (the app's field names; absent values are explicit `null`s).
struct PostResponse: Encodable {
    let post: Post
    let now: Date
    var rank: Int?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(post.id.rawValue, forKey: .id)
        try container.encode(post.productName, forKey: .productName)
        try container.encode(post.price, forKey: .price)
        try container.encode(post.category.id.rawValue, forKey: .category)
        try container.encode(post.category.name, forKey: .categoryName)
        try container.encode(post.displayURL, forKey: .displayURL)
        try container.encode(post.groupBuyingURL, forKey: .groupBuyingURL)
        try container.encode(WireDate.format(post.groupBuyingStart), forKey: .groupBuyingStart)
        try container.encode(WireDate.format(post.groupBuyingEnd), forKey: .groupBuyingEnd)
        try container.encode(PostStatus(start: post.groupBuyingStart, end: post.groupBuyingEnd, now: now).rawValue, forKey: .status)
        try container.encode(post.likesCount, forKey: .likesCount)
        try container.encode(WireDate.format(post.postedAt), forKey: .postedAt)
        var influencer = container.nestedContainer(keyedBy: InfluencerKeys.self, forKey: .influencer)
        try influencer.encode(post.influencer.id.rawValue, forKey: .id)
        try influencer.encode(post.influencer.username, forKey: .username)
        try influencer.encode(post.influencer.fullName, forKey: .fullName)
        try influencer.encode(post.influencer.profilePicURL, forKey: .profilePicURL)
        try influencer.encode(post.influencer.externalURL, forKey: .externalURL)
        try container.encode(post.isLiked, forKey: .isLiked)
        if let rank { try container.encode(rank, forKey: .rank) }
    }

    private enum Keys: String, CodingKey {
        case id, price, category, status, influencer, rank
        case productName = "product_name", categoryName = "category_name", displayURL = "display_url"
        case groupBuyingURL = "group_buying_url", groupBuyingStart = "group_buying_start", groupBuyingEnd = "group_buying_end"
        case likesCount = "likes_count", postedAt = "posted_at", isLiked = "is_liked"
    }

    private enum InfluencerKeys: String, CodingKey {
        case id, username
        case fullName = "full_name", profilePicURL = "profile_pic_url", externalURL = "external_url"
    }
}

/// `{data, total, page, limit, has_next}`.
struct PostPageResponse: Encodable {
    let data: [PostResponse]
    let total: Int
    let page: Int
    let limit: Int
    let hasNext: Bool
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case data, total, page, limit
        case hasNext = "has_next", nextCursor = "next_cursor"
    }
}

/// `{data}` of the Top 10.
struct PostListResponse: Encodable {
    let data: [PostResponse]
}

/// The answer to like / unlike.
struct LikeResponse: Encodable {
    let postID: Int
    let liked: Bool
    let likesCount: Int

    enum CodingKeys: String, CodingKey {
        case liked
        case postID = "post_id", likesCount = "likes_count"
    }
}

/// The body of `POST /v1/posts`.
struct CreatePostRequest: Decodable {
    let influencerID: Int
    let productName: String
    let price: Int?
    let category: String
    let groupBuyingStart: String
    let groupBuyingEnd: String
    let displayURL: String?
    let groupBuyingURL: String?

    enum CodingKeys: String, CodingKey {
        case price, category
        case influencerID = "influencer_id", productName = "product_name", groupBuyingStart = "group_buying_start"
        case groupBuyingEnd = "group_buying_end", displayURL = "display_url", groupBuyingURL = "group_buying_url"
    }
}

/// The body of `PATCH /v1/posts/{id}`.
struct UpdatePostRequest: Decodable {
    let productName: String?
    let price: Int?
    let category: String?
    let groupBuyingStart: String?
    let groupBuyingEnd: String?
    let displayURL: String?
    let groupBuyingURL: String?

    enum CodingKeys: String, CodingKey {
        case price, category
        case productName = "product_name", groupBuyingStart = "group_buying_start"
        case groupBuyingEnd = "group_buying_end", displayURL = "display_url", groupBuyingURL = "group_buying_url"
    }
}
