import Codecs
import Domain
import Foundation
import HTTPServer

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
