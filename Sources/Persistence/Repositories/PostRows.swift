import Domain
import Foundation
import PostgresDriver

/// The SQL that selects a post for a viewer, and its decoding, shared by every query
/// that returns posts.
enum PostRows {
    /// The post columns for `viewer` (whether each post is liked). `is_liked` is one
    /// primary-key probe per row: an `EXISTS` may be planned as hashing all of the viewer's
    /// likes, which grows with the viewer.
    static func columns(viewer: UserID?) -> SQL {
        """
        p.id, p.product_name, p.price, p.category_id, c.name, p.display_url, p.group_buying_url,
        p.group_buying_start, p.group_buying_end, p.likes_count, p.posted_at, p.submitted_by,
        i.id, i.username, i.full_name, i.profile_pic_url, i.external_url,
        COALESCE((SELECT true FROM likes l WHERE l.user_id = \(viewer?.rawValue)::uuid AND l.post_id = p.id), false),
        p.post_url, array_to_string(p.hashtags, ' '), p.post_type
        """
    }

    /// The positions of ``columns(viewer:)``, in order.
    enum Column: Int, CaseIterable {
        case id, productName, price, categoryID, categoryName, displayURL, groupBuyingURL
        case groupBuyingStart, groupBuyingEnd, likesCount, postedAt, submittedBy
        case influencerID, username, fullName, profilePicURL, externalURL
        case isLiked
        /// Tags hold no spaces (PostRules.hashtag), so they travel joined by one.
        case postURL, hashtags, postType
    }

    /// How many columns ``columns(viewer:)`` selects.
    static let count = Column.allCases.count

    static let joins: SQL = "FROM posts p JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id"

    /// The post in `row`, whose ``columns(viewer:)`` start at column `first`; `caption`
    /// when the statement read it.
    static func decode(_ row: PostgresRow, from first: Int, caption: String? = nil) throws -> Post {
        func column<T: PostgresDecodable>(_ column: Column, as type: T.Type = T.self) throws -> T {
            try row.decode(first + column.rawValue)
        }
        return Post(
            id: PostID(rawValue: try column(.id)), productName: try column(.productName), price: try column(.price),
            category: Category(id: CategoryID(rawValue: try column(.categoryID)), name: try column(.categoryName)),
            displayURL: try column(.displayURL), groupBuyingURL: try column(.groupBuyingURL),
            groupBuyingStart: try column(.groupBuyingStart), groupBuyingEnd: try column(.groupBuyingEnd),
            likesCount: try column(.likesCount), postedAt: try column(.postedAt),
            submittedBy: (try column(.submittedBy, as: UUID?.self)).map(UserID.init(rawValue:)),
            influencer: InfluencerSummary(id: InfluencerID(rawValue: try column(.influencerID)), username: try column(.username),
                                          fullName: try column(.fullName), profilePicURL: try column(.profilePicURL),
                                          externalURL: try column(.externalURL)),
            isLiked: try column(.isLiked),
            details: PostDetails(postURL: try column(.postURL), caption: caption,
                                 hashtags: (try column(.hashtags, as: String.self)).split(separator: " ").map(String.init),
                                 postType: try column(.postType)))
    }

    /// The post in `row`, whose ``columns(viewer:)`` come first.
    static func decode(_ row: PostgresRow) throws -> Post {
        try decode(row, from: 0)
    }

    /// The post `id` for `viewer` with its caption, or `nil`.
    static func find(_ id: PostID, viewer: UserID?, _ connection: PostgresConnection) throws -> Post? {
        try found(connection.query(find(id, viewer: viewer)))
    }

    /// ``find(_:viewer:_:)``'s statement, for a pipelined read too
    /// (``PostgresPool/read(_:presence:decode:)``), with ``found(_:)`` decoding its rows.
    static func find(_ id: PostID, viewer: UserID?) -> SQL {
        "SELECT \(columns(viewer: viewer)), p.caption \(joins) WHERE p.id = \(id.rawValue)"
    }

    static func found(_ rows: PostgresRows) throws -> Post? {
        try rows.first.map { try decode($0, from: 0, caption: try $0.decode(count)) }
    }
}
