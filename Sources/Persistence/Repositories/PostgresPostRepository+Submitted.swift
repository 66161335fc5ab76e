import Domain
import Foundation
import PostgresDriver

/// A member's own posts, the hidden ones among them.
extension PostgresPostRepository {
    /// Walks `posts_submitted_by` (migration 0018) in its order, with the user's posts an
    /// operator hid (migration 0038: kept whole in `hidden_posts`), marked.
    public func submittedPosts(by user: UserID, offset: Int, limit: Int) async throws -> Page<Post> {
        try await pool.withConnection { connection in
            let total: Int = try connection.query("""
                SELECT ((SELECT count(*) FROM posts WHERE submitted_by = \(user.rawValue))
                        + (SELECT count(*) FROM hidden_posts WHERE submitted_by = \(user.rawValue)))::int
                """).single().decode(0)
            let hidden: SQL = """
                FROM (SELECT (jsonb_populate_record(NULL::posts, h.post)).* FROM hidden_posts h WHERE h.submitted_by = \(user.rawValue)) p
                JOIN influencers i ON i.id = p.influencer_id JOIN categories c ON c.id = p.category_id
                """
            // Ordered by position: posted_at is column 11, the post's id column 1.
            let items = try connection.query("""
                SELECT \(PostRows.columns(viewer: user)), false \(PostRows.joins) WHERE p.submitted_by = \(user.rawValue)
                UNION ALL
                SELECT \(PostRows.columns(viewer: user)), true \(hidden)
                ORDER BY \(raw: PostRows.Column.postedAt.rawValue + 1) DESC, 1 DESC OFFSET \(offset) LIMIT \(limit)
                """).map { row in
                var post = try PostRows.decode(row)
                post.hidden = try row.decode(PostRows.count)
                return post
            }
            return Page(items: items, total: total)
        }
    }
}
