import Domain
import Foundation

/// The SQL that selects a post for a viewer, and its decoding, shared by every query
/// that returns posts.
enum PostRows {
    /// The post columns; `parameter` is the number of the viewer's parameter. `is_liked` is
    /// one primary-key probe per row: an `EXISTS` may be planned as hashing all of the
    /// viewer's likes, which grows with the viewer.
    static func columns(viewer parameter: Int) -> String {
        """
        p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
        p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
        i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
        COALESCE((SELECT true FROM likes l WHERE l.user_id = $\(parameter)::uuid AND l.post_id = p.id), false)
        """
    }

    static let joins = "FROM posts p JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id"

    /// The post in `row`, whose ``columns(viewer:)`` start at column `first`.
    static func decode(_ row: PostgresRow, from first: Int) throws -> Post {
        Post(
            id: PostID(rawValue: try row.decode(first)), productName: try row.decode(first + 1), price: try row.decode(first + 2),
            category: Category(id: CategoryID(rawValue: try row.decode(first + 3)), name: try row.decode(first + 4)),
            displayURL: try row.decode(first + 5), groupBuyingURL: try row.decode(first + 6),
            groupBuyingStart: try row.decode(first + 7), groupBuyingEnd: try row.decode(first + 8),
            likesCount: try row.decode(first + 9), postedAt: try row.decode(first + 10),
            submittedBy: (try row.decode(first + 11, as: UUID?.self)).map(UserID.init(rawValue:)),
            influencer: InfluencerSummary(id: InfluencerID(rawValue: try row.decode(first + 12)), username: try row.decode(first + 13),
                                          fullName: try row.decode(first + 14), profilePicURL: try row.decode(first + 15),
                                          externalURL: try row.decode(first + 16)),
            isLiked: try row.decode(first + 17))
    }

    /// The post in `row`, whose ``columns(viewer:)`` come first.
    static func decode(_ row: PostgresRow) throws -> Post {
        try decode(row, from: 0)
    }

    /// The post `id` for `viewer`, or `nil`.
    static func find(_ id: PostID, viewer: UserID?, _ connection: PostgresConnection) throws -> Post? {
        try connection.query("SELECT \(columns(viewer: 2)) \(joins) WHERE p.id = $1", [id.rawValue, viewer?.rawValue]).first.map(decode)
    }
}
