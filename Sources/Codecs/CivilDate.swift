/// Proleptic Gregorian dates as day counts since 1970-01-01 and back, without `Calendar`
/// (Howard Hinnant's `days_from_civil` / `civil_from_days`). Used on hot paths: every
/// timestamp a response or a query carries goes through here.
public enum CivilDate {
    /// Days since 1970-01-01 of `year-month-day` (month 1...12, day 1...31, not checked).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    public static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Whether `year-month-day` names a real date (so 2026-02-30 does not).
    public static func isValid(year: Int, month: Int, day: Int) -> Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let next = month == 12 ? days(year: year + 1, month: 1, day: 1) : days(year: year, month: month + 1, day: 1)
        return day <= next - days(year: year, month: month, day: 1)
    }

    /// `a / b` rounded towards negative infinity (`b > 0`).
    public static func floorDivide(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    /// Appends the date `days` after 1970-01-01 as `YYYY-MM-DD`.
    public static func appendISODate(days: Int, to bytes: inout [UInt8]) {
        let (year, month, day) = date(fromDays: days)
        appendPadded(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendPadded(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendPadded(day, width: 2, to: &bytes)
    }

    /// Appends `value` in decimal, zero-padded to `width` digits (`value >= 0`).
    public static func appendPadded(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digits = 1, rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let count = max(digits, width)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var remaining = value
        var index = start + count - 1
        while remaining > 0 {
            bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            index -= 1
        }
    }
}
