import Domain
import Foundation

extension HTTPRequest {
    /// An integer query parameter in `range`, `fallback` when absent; 400 naming it otherwise.
    func queryInteger(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = query[name], !text.isEmpty else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.invalidParameter(name, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `page` (from 1) and `limit` (1–50) of an offset-paged list. Offsets are cut at
    /// `reach` items (``PageWindow/maxItems`` unless given): PostgreSQL reads and discards
    /// every row before the page, so a deep page costs in proportion to its depth
    /// (`sort=latest&page=2000&limit=50` read 100,000 rows: 0.45 s on 1 M posts). Deeper
    /// lists page with `next_cursor`.
    func pageWindow(reach: Int = PageWindow.maxItems) throws -> PageWindow {
        let page = try queryInteger("page", in: 1...100_000, default: 1)
        let limit = try queryInteger("limit", in: 1...50, default: 20)
        guard page * limit <= reach else {
            throw APIError.invalidParameter("page", "pages reach item \(reach) at most (page × limit)\(reach < PageWindow.maxItems ? " with a search or a status other than closed" : ""); narrow the filters, or follow next_cursor (sort=latest, popular or ending_soon)")
        }
        return PageWindow(page: page, limit: limit, reach: reach)
    }

    /// `search`: trimmed, `nil` when empty; at most 100 characters and no control
    /// characters (they are never part of a name, and migration 0013 does not index them).
    func searchTerm() throws -> String? {
        guard let search = query["search"]?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty else { return nil }
        guard search.count <= 100 else { throw APIError.invalidParameter("search", "search must be at most 100 characters") }
        guard !search.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.invalidParameter("search", "search must not contain control characters")
        }
        return search
    }

    /// An integer path parameter (a database id) in canonical form: 1–18 ASCII digits
    /// without a leading zero. `Int("+1")` is 1, so parsing alone would let `/posts/+1`
    /// and `/posts/01` name post 1; anything but the canonical spelling is 400.
    func pathID(_ name: String = "id") throws -> Int {
        guard let text = pathParameters[name], (1...18).contains(text.utf8.count), text.utf8.first != UInt8(ascii: "0"),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(text)
        else {
            throw APIError.invalidParameter(name, "\(name) must be a positive integer in decimal digits")
        }
        return value
    }
}

/// A validated page of an offset-paged list.
struct PageWindow {
    /// How deep offset paging goes: the last item a page may reach.
    static let maxItems = 10_000
    /// The page, from 1.
    let page: Int
    /// Items per page.
    let limit: Int
    /// The last item a page of this list may reach.
    var reach = Self.maxItems

    /// Whether a page follows this one in a list of `total` items (offset paging stops at
    /// ``reach``).
    func hasNext(total: Int) -> Bool {
        page * limit < total && allowsNext
    }

    /// Whether offset paging reaches past this page at all.
    var allowsNext: Bool {
        page * limit < reach
    }
}

/// Dates on the wire: ISO 8601 to the second with the Korea offset on output (`Z` for
/// account timestamps); any offset (or `Z`) on input, with or without fractional seconds.
public enum WireDate {
    /// Appends `2026-12-01T10:00:00+09:00` (`2026-12-01T01:00:00Z` with `koreaOffset:
    /// false`) to `bytes`: JSON writes dates in place.
    static func append(_ date: Date, koreaOffset: Bool = true, to bytes: inout [UInt8]) {
        var seconds = Int(date.timeIntervalSince1970.rounded(.down)) + (koreaOffset ? Int(KoreaDay.utcOffset) : 0)
        let days = CivilDate.floorDivide(seconds, 86_400)
        seconds -= days * 86_400
        CivilDate.appendISODate(days: days, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        CivilDate.appendPadded(seconds / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        CivilDate.appendPadded(seconds / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        CivilDate.appendPadded(seconds % 60, width: 2, to: &bytes)
        if koreaOffset {
            bytes.append(contentsOf: "+09:00".utf8)
        } else {
            bytes.append(UInt8(ascii: "Z"))
        }
    }

    /// A date as a JSON string in the wire format.
    struct JSON: JSONWritable {
        let date: Date
        let koreaOffset: Bool

        init(_ date: Date, koreaOffset: Bool = true) {
            self.date = date
            self.koreaOffset = koreaOffset
        }

        func write(to json: inout JSONWriter) {
            json.ascii { WireDate.append(date, koreaOffset: koreaOffset, to: &$0) }
        }
    }

    /// Parses input; 400 naming `field` when it is not ISO 8601 with an offset.
    public static func parse(_ text: String, field: String) throws -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        throw APIError.invalidBody("\(field) must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T10:00:00+09:00", field: field)
    }
}
