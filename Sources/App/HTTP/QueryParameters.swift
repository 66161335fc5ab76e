import Domain
import Foundation
import HTTPServer

extension HTTPRequest {
    /// An integer query parameter in `range`, `fallback` when absent; 400 naming it
    /// otherwise (an empty value included: the contract's integer is not "").
    func queryInteger(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = query[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.invalidParameter(name, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `page` (from 1) and `limit` (1–50) of an offset-paged list. Offsets are cut at
    /// `reach` items (``FeedPage/offsetLimit`` unless given): PostgreSQL reads and discards
    /// every row before the page, so a deep page costs in proportion to its depth
    /// (`sort=latest&page=2000&limit=50` read 100,000 rows: 0.45 s on 1 M posts). Deeper
    /// lists page with `next_cursor`.
    func pageWindow(reach: Int = FeedPage.offsetLimit) throws -> PageWindow {
        try PageWindow(page: try queryInteger("page", in: 1...100_000, default: 1), limit: try queryInteger("limit", in: 1...50, default: 20),
                       reach: reach)
    }

    /// `search`: trimmed, `nil` when empty; at most 100 characters and no control
    /// characters (they are never part of a name, and migration 0013 does not index them).
    func searchTerm() throws -> String? {
        guard let raw = query["search"] else { return nil }
        // Checked as sent, as the contract states them (maxLength counts code points).
        guard raw.unicodeScalars.count <= 100 else { throw APIError.invalidParameter("search", "search must be at most 100 characters") }
        guard !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.invalidParameter("search", "search must not contain control characters")
        }
        let search = raw.trimmingCharacters(in: .whitespaces)
        return search.isEmpty ? nil : search
    }

    /// An integer path parameter (a database id) in canonical form: 1 to 9223372036854775807
    /// (a bigint) in ASCII digits without a leading zero. `Int("+1")` is 1, so parsing alone
    /// would let `/posts/+1` and `/posts/01` name post 1; anything but the canonical
    /// spelling is 400.
    func pathID(_ name: String = "id") throws -> Int {
        guard let text = pathParameters[name], (1...19).contains(text.utf8.count), text.utf8.first != UInt8(ascii: "0"),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(text)
        else {
            throw APIError.invalidParameter(name, "\(name) must be a positive integer in decimal digits")
        }
        return value
    }
}

/// A validated page of an offset-paged list, and the one rule of how deep offset paging
/// goes: a page may start anywhere before item ``reach`` and is cut there, and what a
/// list promises (its `total`, `has_next`) stops there too, so a client paging with
/// `page`/`limit` until it holds `total` items always gets them: a total the pages cannot
/// reach would send it to a page that answers 400.
struct PageWindow {
    /// The page, from 1.
    let page: Int
    /// Items per page.
    let limit: Int
    /// The last item a page of this list may reach.
    var reach = FeedPage.offsetLimit

    /// A page `page` of `limit` items of a list offset-paged to item `reach`; 400 naming
    /// `page` when it would start past it.
    init(page: Int, limit: Int, reach: Int = FeedPage.offsetLimit) throws {
        guard (page - 1) * limit < reach else {
            throw APIError.invalidParameter("page", "offset pages reach item \(reach) (this page starts past it)\(reach < FeedPage.offsetLimit ? " with a search or a status other than closed" : ""); narrow the filters, or follow next_cursor (sort=latest, popular or ending_soon)")
        }
        self.page = page
        self.limit = limit
        self.reach = reach
    }

    /// The items of a list of `total` that offset pages reach: what `total` promises.
    func reachable(_ total: Int) -> Int {
        min(total, reach)
    }

    /// How many of this page's items lie before ``reach`` (the rest are not shown).
    var visible: Int {
        max(0, min(limit, reach - (page - 1) * limit))
    }

    /// Whether a page follows this one in a list of `total` items (offset paging stops at
    /// ``reach``).
    func hasNext(total: Int) -> Bool {
        page * limit < reachable(total)
    }

    /// Whether offset paging reaches past this page at all.
    var allowsNext: Bool {
        page * limit < reach
    }
}
