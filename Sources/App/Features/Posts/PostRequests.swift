import Domain
import Foundation
import HTTPServer

/// The body of `POST /v1/posts`.
struct CreatePostRequest: JSONRequestBody {
    let influencerID: Int
    let productName: String
    let price: Int?
    let category: String
    let groupBuyingStart: String
    let groupBuyingEnd: String
    let displayURL: String?
    let groupBuyingURL: String?
    let postURL: String?
    let caption: String?
    let hashtags: [String]?
    let postType: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case price, category, caption, hashtags
        case influencerID = "influencer_id", productName = "product_name", groupBuyingStart = "group_buying_start"
        case groupBuyingEnd = "group_buying_end", displayURL = "display_url", groupBuyingURL = "group_buying_url"
        case postURL = "post_url", postType = "post_type"
    }
}

/// The body of `PATCH /v1/posts/{id}`.
struct UpdatePostRequest: JSONRequestBody {
    let productName: String?
    let price: Int?
    let category: String?
    let groupBuyingStart: String?
    let groupBuyingEnd: String?
    let displayURL: String?
    let groupBuyingURL: String?
    let postURL: String?
    let caption: String?
    let hashtags: [String]?
    let postType: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case price, category, caption, hashtags
        case productName = "product_name", groupBuyingStart = "group_buying_start"
        case groupBuyingEnd = "group_buying_end", displayURL = "display_url", groupBuyingURL = "group_buying_url"
        case postURL = "post_url", postType = "post_type"
    }
}
