import Domain
import Foundation
import PostgresDriver

/// Posts in the console: shown ones (with the feed's own conditions, its Korean search
/// included) and hidden ones, edits, hiding and deletion.
extension PostgresConsoleStore {
    /// A console row's columns from `posts p` joined to `influencers i`.
    private static let shownColumns: SQL = """
        p.id, p.product_name, p.price, p.category_id, p.influencer_id, i.username, p.source, p.group_buying_start, p.group_buying_end,
        p.display_url, p.group_buying_url, p.caption, p.likes_count, p.submitted_by, NULL::timestamptz
        """
    /// The same from `hidden_posts h` (the row kept as JSON).
    private static let hiddenColumns: SQL = """
        h.id, h.product_name, (h.post ->> 'price')::int, h.post ->> 'category_id', h.influencer_id, i.username, h.post ->> 'source',
        h.group_buying_start, h.group_buying_end, h.display_url, h.post ->> 'group_buying_url', h.post ->> 'caption',
        jsonb_array_length(h.likes), h.submitted_by, h.hidden_at
        """

    private static func decode(_ row: PostgresRow) throws -> ConsolePost {
        ConsolePost(id: PostID(rawValue: try row.decode(0)), productName: try row.decode(1), price: try row.decode(2),
                    category: CategoryID(rawValue: try row.decode(3)), influencerID: InfluencerID(rawValue: try row.decode(4)),
                    influencerUsername: try row.decode(5), source: try row.decode(6), groupBuyingStart: try row.decode(7),
                    groupBuyingEnd: try row.decode(8), displayURL: try row.decode(9), groupBuyingURL: try row.decode(10),
                    caption: try row.decode(11), likesCount: try row.decode(12),
                    submittedBy: (try row.decode(13, as: UUID?.self)).map(UserID.init(rawValue:)), hiddenAt: try row.decode(14))
    }

    public func posts(_ filter: ConsolePostFilter, now: Date, offset: Int, limit: Int) async throws -> Page<ConsolePost> {
        try await pool.withConnection { connection in
            let source: SQL
            let conditions: SQLConditions
            let columns: SQL
            if filter.hidden {
                var hidden: [SQL] = []
                if let influencer = filter.influencer { hidden.append("h.influencer_id = \(influencer.rawValue)") }
                if let search = filter.search {
                    hidden.append("lower(h.product_name || ' ' || i.username) LIKE \("%" + FeedSQL.escapeLike(search.lowercased()) + "%")")
                }
                if let category = filter.category { hidden.append("h.post ->> 'category_id' = \(category.rawValue)") }
                if let origin = filter.source { hidden.append("h.post ->> 'source' = \(origin)") }
                (source, conditions, columns) = ("hidden_posts h JOIN influencers i ON i.id = h.influencer_id", SQLConditions(all: hidden), Self.hiddenColumns)
            } else {
                var query = FeedQuery()
                query.search = filter.search
                query.category = filter.category
                query.status = filter.status
                query.influencer = filter.influencer
                var sql = PostgresFeedRepository.conditions(query, now: now, windows: nil)
                if let origin = filter.source { sql.where("p.source = \(origin)") }
                (source, conditions, columns) = ("posts p JOIN influencers i ON i.id = p.influencer_id", sql.matching, Self.shownColumns)
            }
            let key: SQL = filter.hidden ? "h.id" : "p.id"
            let items = try connection.queryPlannedForValues("""
                SELECT \(columns) FROM \(source) \(conditions.whereClause) ORDER BY \(key) DESC OFFSET \(offset) LIMIT \(limit)
                """).map(Self.decode)
            let total: Int = try connection.queryPlannedForValues("""
                SELECT count(*)::int FROM (SELECT 1 FROM \(source) \(conditions.whereClause) LIMIT \(ConsolePostFilter.countedUpTo + 1)) counted
                """).single().decode(0)
            return Page(items: items, total: total)
        }
    }

    public func post(id: PostID) async throws -> ConsolePost? {
        try await pool.withConnection { connection in
            if let shown = try connection.query("""
                SELECT \(Self.shownColumns) FROM posts p JOIN influencers i ON i.id = p.influencer_id WHERE p.id = \(id.rawValue)
                """).first {
                return try Self.decode(shown)
            }
            return try connection.query("""
                SELECT \(Self.hiddenColumns) FROM hidden_posts h JOIN influencers i ON i.id = h.influencer_id WHERE h.id = \(id.rawValue)
                """).first.map(Self.decode)
        }
    }

    public func editPost(id: PostID, changes: PostChanges, by actor: AdminActor) async throws {
        try await PostgresPostRepository.mappingPostErrors {
            try await pool.transaction { connection in
                guard let current = try connection.query("SELECT group_buying_start, group_buying_end, posted_at FROM posts WHERE id = \(id.rawValue) FOR UPDATE").first
                else { throw DomainError.notFound("post") }
                let (start, end, postedAt): (Date, Date, Date) = (try current.decode(0), try current.decode(1), try current.decode(2))
                try PostRules.edit(changes, start: start, end: end, postedAt: postedAt)
                try AuditTrail.audited(actor, action: "post.edit", target: "post \(id)", row: PostgresPostRepository.auditedRow(id), connection) {
                    ((), try PostgresPostRepository.apply(changes, to: id, connection) == 1)
                }
            }
        }
    }

    public func setHidden(posts: [PostID], hidden: Bool, by actor: AdminActor) async throws -> Int {
        try await Self.mappingConstraintErrors {
            try await pool.transaction { connection in
                var changed = 0
                for id in posts {
                    let row: String? = try connection.query(hidden ? "SELECT post_hide(\(id.rawValue), false)::text"
                                                                   : "SELECT post_show(\(id.rawValue))::text FROM hidden_posts WHERE id = \(id.rawValue) AND NOT with_influencer")
                        .first?.decode(0)
                    guard let row else { continue }
                    try AuditTrail.record(actor, action: hidden ? "post.hide" : "post.show", target: "post \(id)",
                                          before: hidden ? row : nil, after: hidden ? nil : row, connection)
                    changed += 1
                }
                return changed
            }
        }
    }

    public func deletePost(id: PostID, by actor: AdminActor) async throws -> Bool {
        try await pool.transaction { connection in
            let before = try AuditTrail.snapshot(PostgresPostRepository.auditedRow(id), connection)
                ?? AuditTrail.snapshot("SELECT post FROM hidden_posts WHERE id = \(id.rawValue)", connection)
            guard let before else { return false }
            try connection.execute("DELETE FROM hidden_posts WHERE id = \(id.rawValue)")
            try connection.execute("DELETE FROM posts WHERE id = \(id.rawValue)")
            try AuditTrail.record(actor, action: "post.delete", target: "post \(id)", before: before, after: nil, connection)
            return true
        }
    }

    /// Check and unique violations as the API reports them: a bad value, or a taken key.
    static func mappingConstraintErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw DomainError.conflict("post")
        } catch let error as PostgresError where error.code == .checkViolation {
            throw DomainError.invalid(field: nil, message: "A value is out of its allowed range (\(error.constraint ?? "check")).")
        }
    }
}
