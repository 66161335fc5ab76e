import Domain
import Foundation

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
    /// `reach` items (``PageWindow/maxItems`` unless given): PostgreSQL reads and discards
    /// every row before the page, so a deep page costs in proportion to its depth
    /// (`sort=latest&page=2000&limit=50` read 100,000 rows: 0.45 s on 1 M posts). Deeper
    /// lists page with `next_cursor`.
    func pageWindow(reach: Int = PageWindow.maxItems) throws -> PageWindow {
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
/// `page`/`limit` until it holds `total` items always gets them. (Before, a search
/// reported a total above 1,000 while page 34 of 30 answered 400.)
struct PageWindow {
    /// How deep offset paging goes: the last item a page may reach.
    static let maxItems = 10_000
    /// The page, from 1.
    let page: Int
    /// Items per page.
    let limit: Int
    /// The last item a page of this list may reach.
    var reach = Self.maxItems

    /// A page `page` of `limit` items of a list offset-paged to item `reach`; 400 naming
    /// `page` when it would start past it.
    init(page: Int, limit: Int, reach: Int = Self.maxItems) throws {
        guard (page - 1) * limit < reach else {
            throw APIError.invalidParameter("page", "offset pages reach item \(reach) (this page starts past it)\(reach < Self.maxItems ? " with a search or a status other than closed" : ""); narrow the filters, or follow next_cursor (sort=latest, popular or ending_soon)")
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

/// Dates on the wire: ISO 8601 to the millisecond with the Korea offset on output (`Z`
/// for account timestamps); any offset (or `Z`) on input, with or without fractional
/// seconds. Always three fraction digits: the app parses with `ISO8601DateFormatter`'s
/// `.withFractionalSeconds`, which refuses a date without them, and it then shows "now".
public enum WireDate {
    /// Appends `2026-12-01T10:00:00.000+09:00` (`2026-12-01T01:00:00.000Z` with
    /// `koreaOffset: false`) to `bytes`: JSON writes dates in place. Milliseconds are
    /// truncated, never rounded up into the next second; the instant is first rounded to
    /// the microsecond PostgreSQL keeps, so 1.001 s (1.000999… as a double) stays .001.
    static func append(_ date: Date, koreaOffset: Bool = true, to bytes: inout [UInt8]) {
        let milliseconds = CivilDate.floorDivide(Int((date.timeIntervalSince1970 * 1_000_000).rounded()), 1000)
        var seconds = CivilDate.floorDivide(milliseconds, 1000)
        let fraction = milliseconds - seconds * 1000
        seconds += koreaOffset ? Int(KoreaDay.utcOffset) : 0
        let days = CivilDate.floorDivide(seconds, 86_400)
        seconds -= days * 86_400
        CivilDate.appendISODate(days: days, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        CivilDate.appendPadded(seconds / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        CivilDate.appendPadded(seconds / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        CivilDate.appendPadded(seconds % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        CivilDate.appendPadded(fraction, width: 3, to: &bytes)
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

    /// Parses an RFC 3339 date-time (what the contract's `format: date-time` means), from
    /// year 1900 (the contract's pattern) to 9999: `T`/`t`, optional fractional seconds, second 60 (a leap second, read
    /// as 59), `Z`/`z` or an offset up to ±23:59. 400 naming `field` otherwise.
    /// Foundation's ISO 8601 parser refused some of these (`+20:26`, year 0194).
    public static func parse(_ text: String, field: String) throws -> Date {
        guard let date = rfc3339(Array(text.utf8)) else {
            throw APIError.invalidBody("\(field) must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T10:00:00+09:00", field: field)
        }
        return date
    }

    private static func rfc3339(_ b: [UInt8]) -> Date? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var value = 0
            for index in range {
                guard (48...57).contains(b[index]) else { return nil }
                value = value * 10 + Int(b[index] - 48)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] | 0x20 == UInt8(ascii: "t"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              year >= 1900, CivilDate.isValid(year: year, month: month, day: day), hour < 24, minute < 60, second <= 60 else { return nil }
        var index = 19
        var fraction = 0.0
        if b[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            let start = index
            while index < b.count, (48...57).contains(b[index]) {
                fraction += Double(b[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        if b[index] | 0x20 == UInt8(ascii: "z") {
            index += 1
        } else {
            guard b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), b.count == index + 6, b[index + 3] == UInt8(ascii: ":"),
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60 else { return nil }
            offset = (hours * 60 + minutes) * 60 * (b[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        }
        guard index == b.count else { return nil }
        let seconds = CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }
}
