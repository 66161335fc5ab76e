import Domain
import Foundation
import HTTPServer

/// Turns import records into validated rows with the API's rules (`market09 import` and
/// the ingest API alike).
public enum ImportRows {
    /// Fields whose text may hold line breaks and tabs; every other field holds no control
    /// character at all (a NUL in one row once failed a whole call with 500).
    private static let multilineFields: Set<String> = ["caption", "biography"]

    /// Refuses the record if a field it carries holds a control character, naming the field.
    private static func plainText(_ record: ImportRecord) throws {
        for (field, value) in record.fields.sorted(by: { $0.key < $1.key }) {
            _ = try TextRules.plain(value, field: field, multiline: multilineFields.contains(field))
        }
    }

    /// An influencer row, or the first broken rule.
    public static func influencer(_ record: ImportRecord, categories: CategoryResolver) async throws -> InfluencerImport {
        try plainText(record)
        let fields = record.fields
        let username = try InstagramUsername.normalized(try PostInput.required(fields["username"], "username"), field: "username")
        // Code points, as the tables' char_length checks count (a Character may be several).
        if let name = fields["full_name"], name.unicodeScalars.count > 100 { throw DomainError.invalid(field: "full_name", message: "full_name must be at most 100 characters") }
        if let bio = fields["biography"], bio.unicodeScalars.count > 2000 { throw DomainError.invalid(field: "biography", message: "biography must be at most 2000 characters") }
        if let title = fields["external_url_title"], title.unicodeScalars.count > 200 {
            throw DomainError.invalid(field: "external_url_title", message: "external_url_title must be at most 200 characters")
        }
        var followers = 0
        if let text = fields["followers_count"] {
            // The column is an INTEGER: past it the row would fail in the database, not here.
            guard let value = Int(text), (0...Int(Int32.max)).contains(value) else {
                throw DomainError.invalid(field: "followers_count", message: "followers_count must be an integer from 0 to 2147483647")
            }
            followers = value
        }
        let isPrivate: Bool
        switch fields["is_private"] {
        case nil, "0", "false": isPrivate = false
        case "1", "true": isPrivate = true
        default: throw DomainError.invalid(field: "is_private", message: "is_private must be true or false")
        }
        return InfluencerImport(
            line: record.line, username: username, fullName: fields["full_name"],
            profilePicURL: try fields["profile_pic_url"].map { try ProfileRules.url($0, field: "profile_pic_url") },
            externalURL: try fields["external_url"].map { try ProfileRules.url($0, field: "external_url") },
            biography: fields["biography"], followersCount: followers,
            category: try await fields["category"].asyncMap { try await categories.resolve($0).rawValue },
            instagramID: try fields["instagram_id"].map { try InstagramUsername.accountID($0) },
            externalURLTitle: fields["external_url_title"], isPrivate: isPrivate)
    }

    /// A post row made at `now`, or every broken rule of it (``Rejected``).
    public static func post(_ record: ImportRecord, categories: CategoryResolver, now: Date) async throws -> PostImport {
        try plainText(record)
        let fields = record.fields
        var check = RuleCheck()
        let username = check.run { try InstagramUsername.normalized(try PostInput.required(fields["influencer_username"], "influencer_username"), field: "influencer_username") }
        let price = check.run { () throws -> Int? in
            guard let text = fields["price"] else { return nil }
            guard let value = Int(text) else { throw DomainError.invalid(field: "price", message: "price must be an integer") }
            return value
        } ?? nil
        let hashtags = check.run { try fields["hashtags"].map(PostRules.hashtags(text:)) ?? [] }
        let input = PostInput(productName: fields["product_name"], price: price, category: fields["category"],
                              groupBuyingStart: fields["group_buying_start"], groupBuyingEnd: fields["group_buying_end"],
                              displayURL: fields["display_url"], groupBuyingURL: fields["group_buying_url"], postURL: fields["post_url"],
                              caption: fields["caption"], hashtags: hashtags, postType: fields["post_type"],
                              instagramPostID: fields["instagram_post_id"], postedAt: fields["posted_at"])
        let mapped = await input.newPost(categories: categories, check: &check)
        guard let username, let mapped, hashtags != nil else { throw Rejected(failures: check.failures) }
        let post = PostRules.checked(mapped, now: now, &check)
        guard check.failures.isEmpty else { throw Rejected(failures: check.failures) }
        return PostImport(line: record.line, influencerUsername: username, post: post)
    }

    /// Every broken rule of a row, named together.
    public struct Rejected: Error, Sendable {
        public let failures: [DomainError]
    }

    /// The line and reason for a record that failed to read or validate.
    public static func reject(_ record: Result<ImportRecord, UnreadableRecord>, _ error: any Error) -> (line: Int, reason: String) {
        let line: Int
        switch record {
        case .success(let record): line = record.line
        case .failure(let unreadable): line = unreadable.line
        }
        func describe(_ failure: DomainError) -> String {
            if case .invalid(let field, let message) = failure { return field.map { "\($0): \(message)" } ?? message }
            return String(describing: failure)
        }
        switch error {
        case let error as Rejected: return (line, error.failures.map(describe).joined(separator: "; "))
        case let error as UnreadableRecord: return (line, error.reason)
        case DomainError.invalid(let field, let message): return (line, field.map { "\($0): \(message)" } ?? message)
        case let error as APIError: return (line, error.field.map { "\($0): \(error.message)" } ?? error.message)
        default: return (line, String(describing: error))
        }
    }
}
