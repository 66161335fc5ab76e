import Domain
import Foundation
import HTTPServer

/// A post as a door sends it — `/v1/posts`' JSON body, the posts edge function's body, an
/// import row — and the one mapping from the wire's fields to the Domain's ``NewPost`` and
/// ``PostChanges``: dates read by ``WireDate``, the category resolved by name or id, the
/// Instagram details gathered. Each door reads its own wire into one (and keeps its own
/// dialect for what is missing); the Domain's rules (``PostRules``) apply after.
struct PostInput: Sendable {
    var influencerID: Int?
    var productName: String?
    var price: Int?
    var category: String?
    var groupBuyingStart: String?
    var groupBuyingEnd: String?
    var displayURL: String?
    var groupBuyingURL: String?
    var postURL: String?
    var caption: String?
    var hashtags: [String]?
    var postType: String?
    var instagramPostID: String?
    var postedAt: String?

    /// A new post, or `nil` with every field that cannot be mapped recorded in `check` (a
    /// required field absent, a date that is not one, an unknown category), in the order
    /// of the fields: what an import row reports.
    func newPost(categories: CategoryResolver, check: inout RuleCheck) async -> NewPost? {
        var failures: [any Error] = []
        let post = await map(categories: categories, failures: &failures)
        for failure in failures { check.record(Self.domainError(failure)) }
        return post
    }

    /// A new post; the first field that cannot be mapped is thrown as it was raised (a
    /// date's `invalid_body`, a category's `invalid_parameter`): what the API answers.
    func newPost(categories: CategoryResolver) async throws -> NewPost {
        var failures: [any Error] = []
        guard let post = await map(categories: categories, failures: &failures) else { throw failures[0] }
        return post
    }

    private func map(categories: CategoryResolver, failures: inout [any Error]) async -> NewPost? {
        func step<Value>(_ body: () throws -> Value) -> Value? {
            do { return try body() } catch { failures.append(error); return nil }
        }
        var resolved: CategoryID?
        if let name = step({ try Self.required(category, "category") }) {
            do { resolved = try await categories.resolve(name) } catch { failures.append(error) }
        }
        let name = step { try Self.required(self.productName, "product_name") }
        let start = step { try WireDate.parse(try Self.required(groupBuyingStart, "group_buying_start"), field: "group_buying_start") }
        let end = step { try WireDate.parse(try Self.required(groupBuyingEnd, "group_buying_end"), field: "group_buying_end") }
        let posted = step { try postedAt.map { try WireDate.parse($0, field: "posted_at") } } ?? nil
        guard let resolved, let name, let start, let end else { return nil }
        return NewPost(influencerID: InfluencerID(rawValue: influencerID ?? 0), productName: name, price: price, category: resolved,
                       groupBuyingStart: start, groupBuyingEnd: end, displayURL: displayURL, groupBuyingURL: groupBuyingURL,
                       details: PostDetails(postURL: postURL, caption: caption, hashtags: hashtags ?? [], postType: postType,
                                            instagramPostID: instagramPostID, postedAt: posted))
    }

    /// The changes asked for: every field sent, mapped; the rest left as they are.
    func changes(categories: CategoryResolver) async throws -> PostChanges {
        var changes = PostChanges()
        changes.productName = productName
        changes.price = price
        changes.category = try await category.asyncMap { try await categories.resolve($0) }
        changes.groupBuyingStart = try groupBuyingStart.map { try WireDate.parse($0, field: "group_buying_start") }
        changes.groupBuyingEnd = try groupBuyingEnd.map { try WireDate.parse($0, field: "group_buying_end") }
        changes.displayURL = displayURL
        changes.groupBuyingURL = groupBuyingURL
        changes.postURL = postURL
        changes.caption = caption
        changes.hashtags = hashtags
        changes.postType = postType
        return changes
    }

    /// A required field's text; absent or blank is a broken rule naming it.
    static func required(_ value: String?, _ name: String) throws -> String {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw DomainError.invalid(field: name, message: "\(name) is required")
        }
        return value
    }

    /// What a mapping step threw, as a rule the Domain names.
    static func domainError(_ error: any Error) -> DomainError {
        switch error {
        case let error as DomainError: return error
        case let error as APIError: return .invalid(field: error.field, message: error.message)
        default: return .invalid(field: nil, message: String(describing: error))
        }
    }
}

extension PostInput {
    /// `POST /v1/posts`' body (its required fields are the decoder's to insist on).
    init(_ body: CreatePostRequest) {
        self.init(influencerID: body.influencerID, productName: body.productName, price: body.price, category: body.category,
                  groupBuyingStart: body.groupBuyingStart, groupBuyingEnd: body.groupBuyingEnd, displayURL: body.displayURL,
                  groupBuyingURL: body.groupBuyingURL, postURL: body.postURL, caption: body.caption, hashtags: body.hashtags,
                  postType: body.postType)
    }

    /// `PATCH /v1/posts/{id}`'s body.
    init(_ body: UpdatePostRequest) {
        self.init(productName: body.productName, price: body.price, category: body.category, groupBuyingStart: body.groupBuyingStart,
                  groupBuyingEnd: body.groupBuyingEnd, displayURL: body.displayURL, groupBuyingURL: body.groupBuyingURL, postURL: body.postURL,
                  caption: body.caption, hashtags: body.hashtags, postType: body.postType)
    }
}
