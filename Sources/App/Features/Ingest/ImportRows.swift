import Domain
import Foundation
import HTTPServer

/// Turns import records into validated rows with the API's rules (`market09 import` and
/// the ingest API alike).
public enum ImportRows {
    /// An influencer row, or the first broken rule.
    public static func influencer(_ record: ImportRecord, categories: CategoryResolver) async throws -> InfluencerImport {
        let fields = record.fields
        let username = try required(fields, "username").trimmingCharacters(in: .whitespaces).lowercased()
        guard (1...30).contains(username.utf8.count),
              username.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 95 }) else {
            throw DomainError.invalid(field: "username", message: "username must be 1 to 30 of a-z, 0-9, '.', '_'")
        }
        // Code points, as the tables' char_length checks count (a Character may be several).
        if let name = fields["full_name"], name.unicodeScalars.count > 100 { throw DomainError.invalid(field: "full_name", message: "full_name must be at most 100 characters") }
        if let bio = fields["biography"], bio.unicodeScalars.count > 2000 { throw DomainError.invalid(field: "biography", message: "biography must be at most 2000 characters") }
        var followers = 0
        if let text = fields["followers_count"] {
            // The column is an INTEGER: past it the row would fail in the database, not here.
            guard let value = Int(text), (0...Int(Int32.max)).contains(value) else {
                throw DomainError.invalid(field: "followers_count", message: "followers_count must be an integer from 0 to 2147483647")
            }
            followers = value
        }
        return InfluencerImport(
            line: record.line, username: username, fullName: fields["full_name"],
            profilePicURL: try fields["profile_pic_url"].map { try ProfileRules.url($0, field: "profile_pic_url") },
            externalURL: try fields["external_url"].map { try ProfileRules.url($0, field: "external_url") },
            biography: fields["biography"], followersCount: followers,
            category: try await fields["category"].asyncMap { try await categories.resolve($0).rawValue })
    }

    /// A post row, or every broken rule of it (``Rejected``).
    public static func post(_ record: ImportRecord, categories: CategoryResolver) async throws -> PostImport {
        let fields = record.fields
        var check = RuleCheck()
        let username = check.run { try required(fields, "influencer_username") }?.trimmingCharacters(in: .whitespaces).lowercased()
        let price = check.run { () throws -> Int? in
            guard let text = fields["price"] else { return nil }
            guard let value = Int(text) else { throw DomainError.invalid(field: "price", message: "price must be an integer") }
            return value
        } ?? nil
        var category: CategoryID?
        if let name = check.run({ try required(fields, "category") }) {
            do { category = try await categories.resolve(name) } catch { check.record(Self.domainError(error)) }
        }
        let productName = check.run { try required(fields, "product_name") }
        let start = check.run { try WireDate.parse(try required(fields, "group_buying_start"), field: "group_buying_start") }
        let end = check.run { try WireDate.parse(try required(fields, "group_buying_end"), field: "group_buying_end") }
        let hashtags = check.run { try fields["hashtags"].map(PostRules.hashtags(text:)) ?? [] }
        let postedAt = check.run { try fields["posted_at"].map { try WireDate.parse($0, field: "posted_at") } } ?? nil
        guard let username, let category, let productName, let start, let end, let hashtags else { throw Rejected(failures: check.failures) }
        let post = PostRules.checked(NewPost(
            influencerID: InfluencerID(rawValue: 0), productName: productName, price: price, category: category,
            groupBuyingStart: start, groupBuyingEnd: end, displayURL: fields["display_url"], groupBuyingURL: fields["group_buying_url"],
            details: PostDetails(postURL: fields["post_url"], caption: fields["caption"], hashtags: hashtags, postType: fields["post_type"],
                                 instagramPostID: fields["instagram_post_id"], postedAt: postedAt)), &check)
        guard check.failures.isEmpty else { throw Rejected(failures: check.failures) }
        return PostImport(line: record.line, influencerUsername: username, post: post)
    }

    /// Every broken rule of a row, named together.
    public struct Rejected: Error, Sendable {
        public let failures: [DomainError]
    }

    private static func domainError(_ error: any Error) -> DomainError {
        switch error {
        case let error as DomainError: return error
        case let error as APIError: return .invalid(field: error.field, message: error.message)
        default: return .invalid(field: nil, message: String(describing: error))
        }
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

    private static func required(_ fields: [String: String], _ name: String) throws -> String {
        guard let value = fields[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw DomainError.invalid(field: name, message: "\(name) is required")
        }
        return value
    }
}
