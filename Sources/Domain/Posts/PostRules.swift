import Foundation

/// Validation shared by the API and imports.
public enum PostRules {
    /// Product names are 1–200 characters after trimming.
    public static func productName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(name.count) else { throw DomainError.invalid(field: "product_name", message: "product_name must be 1 to 200 characters") }
        return name
    }

    /// Prices are whole won from 0 to 100,000,000.
    public static func price(_ price: Int) throws -> Int {
        guard (0...100_000_000).contains(price) else { throw DomainError.invalid(field: "price", message: "price must be between 0 and 100000000") }
        return price
    }

    /// The window must start before it ends.
    public static func window(start: Date, end: Date) throws {
        guard start < end else { throw DomainError.invalid(field: "group_buying_end", message: "group_buying_end must be after group_buying_start") }
    }

    /// A new post with every field checked.
    public static func validated(_ post: NewPost) throws -> NewPost {
        var post = post
        post.productName = try productName(post.productName)
        post.price = try post.price.map(price)
        try window(start: post.groupBuyingStart, end: post.groupBuyingEnd)
        post.displayURL = try post.displayURL.map { try ProfileRules.url($0, field: "display_url") }
        post.groupBuyingURL = try post.groupBuyingURL.map { try ProfileRules.url($0, field: "group_buying_url") }
        return post
    }
}
