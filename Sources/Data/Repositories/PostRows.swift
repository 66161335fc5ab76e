import Domain
import Foundation

/// The SQL that selects a post for a viewer, and its decoding, shared by every query
/// that returns posts. `$V` in ``columns`` is replaced by the viewer parameter's number.
enum PostRows {
    static func columns(viewer parameter: Int) -> String {
        """
        p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
        p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
        i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
        EXISTS (SELECT 1 FROM likes l WHERE l.user_id = $\(parameter)::uuid AND l.post_id = p.id)
        """
    }

    static let joins = "FROM posts p JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id"

    static func decode(_ row: PostgresRow) throws -> Post {
        Post(
            id: PostID(rawValue: try row.decode(0)), productName: try row.decode(1), price: try row.decode(2),
            category: Category(id: CategoryID(rawValue: try row.decode(3)), name: try row.decode(4)),
            displayURL: try row.decode(5), groupBuyingURL: try row.decode(6),
            groupBuyingStart: try row.decode(7), groupBuyingEnd: try row.decode(8),
            likesCount: try row.decode(9), postedAt: try row.decode(10),
            submittedBy: (try row.decode(11, as: UUID?.self)).map(UserID.init(rawValue:)),
            influencer: InfluencerSummary(id: InfluencerID(rawValue: try row.decode(12)), username: try row.decode(13),
                                          fullName: try row.decode(14), profilePicURL: try row.decode(15), externalURL: try row.decode(16)),
            isLiked: try row.decode(17))
    }

    /// The post `id` for `viewer`, or `nil`.
    static func find(_ id: PostID, viewer: UserID?, _ connection: PostgresConnection) throws -> Post? {
        try connection.query("SELECT \(columns(viewer: 2)) \(joins) WHERE p.id = $1", [id.rawValue, viewer?.rawValue]).first.map(decode)
    }
}
