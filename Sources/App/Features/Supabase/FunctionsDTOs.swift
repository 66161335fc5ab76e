import Domain
import Foundation
import HTTPServer

/// A post as the edge functions answer it (`PostResponse` in the app): ids as strings,
/// `category` the Korean label, times with milliseconds; `rank` in the Top 10.
struct FunctionsPost: JSONWritable {
    let post: Post
    let now: Date
    var rank: Int?

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", String(post.id.rawValue))
            json.field("product_name", post.productName)
            json.field("price", post.price)
            json.field("category", post.category.name)
            json.field("display_url", post.displayURL)
            json.field("group_buying_start", WireDate.JSON(post.groupBuyingStart))
            json.field("group_buying_end", WireDate.JSON(post.groupBuyingEnd))
            json.field("group_buying_url", post.groupBuyingURL)
            json.field("likes_count", post.likesCount)
            json.field("posted_at", WireDate.JSON(post.postedAt))
            json.field("post_url", post.details.postURL)
            json.field("influencer", FunctionsInfluencer(summary: post.influencer))
            json.field("is_liked", post.isLiked)
            if let rank { json.field("rank", rank) }
        }
    }
}

/// An influencer as the functions answer it: `full_name` and `profile_pic_url` are never
/// null there (the app's decoder requires strings), so absent ones are "".
struct FunctionsInfluencer: JSONWritable {
    let summary: InfluencerSummary

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", String(summary.id.rawValue))
            json.field("username", summary.username)
            json.field("full_name", summary.fullName ?? "")
            json.field("profile_pic_url", summary.profilePicURL ?? "")
            json.field("external_url", summary.externalURL)
        }
    }
}

/// `{data, total, page}`: the app pages while what it loaded is below `total`.
struct FunctionsPage: JSONWritable {
    let data: [FunctionsPost]
    let total: Int
    let page: Int

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("data", data)
            json.field("total", total)
            json.field("page", page)
        }
    }
}

/// `{data, meta: {page, limit, total}}` of `action=schedule`.
struct FunctionsSchedule: JSONWritable {
    let data: [FunctionsPost]
    let page: Int
    let limit: Int
    let total: Int

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("data", data)
            json.field("meta", Meta(page: page, limit: limit, total: total))
        }
    }

    private struct Meta: JSONWritable {
        let page: Int
        let limit: Int
        let total: Int

        func write(to json: inout JSONWriter) {
            json.object { json in
                json.field("page", page)
                json.field("limit", limit)
                json.field("total", total)
            }
        }
    }
}

/// `/functions/v1/me` (`UserResponse` in the app).
struct FunctionsProfile: JSONWritable {
    let user: User

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", user.id.description)
            json.field("nickname", user.nickname)
            json.field("profile_url", user.profileURL)
            json.field("provider", user.provider?.rawValue ?? "email")
            json.field("created_at", WireDate.JSON(user.createdAt, koreaOffset: false))
        }
    }
}

/// `{status}` of an influencer registration, `{url}` of an upload.
struct FunctionsField: JSONWritable {
    let name: String
    let value: String

    func write(to json: inout JSONWriter) {
        json.object { json in json.field(dynamic: name, value) }
    }
}
