import Codecs
import Foundation

/// Converts between `Date` and the text form of `timestamptz` without `DateFormatter`,
/// which is slow and locale-sensitive. Connections run with `DateStyle=ISO` and
/// `TimeZone=UTC`, so the server prints `2026-11-29 13:58:26.123456+00`.
public enum PostgresTimestamp {
    /// Formats as `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    public static func format(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var seconds = Int((micros / 1_000_000).rounded(.down))
        let fraction = Int(micros) - seconds * 1_000_000
        let days = CivilDate.floorDivide(seconds, 86_400)
        seconds -= days * 86_400
        let (year, month, day) = CivilDate.date(fromDays: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(fraction, 6))Z"
    }

    /// Parses `YYYY-MM-DD[ T]HH:MM:SS[.f{1,6}][(+|-)HH[:MM[:SS]]|Z]`; `nil` otherwise.
    public static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2), scanner.skip(" ") || scanner.skip("T"),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var micros = 0
        if scanner.skip(".") {
            var digits = 0
            while let digit = scanner.digit() {
                if digits < 6 { micros = micros * 10 + digit }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offset = 0
        if scanner.skip("Z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2) else { return nil }
            var minutes = 0, seconds = 0
            if scanner.skip(":") {
                guard let value = scanner.number(digits: 2) else { return nil }
                minutes = value
                if scanner.skip(":") {
                    guard let value = scanner.number(digits: 2) else { return nil }
                    seconds = value
                }
            }
            offset = sign * (hours * 3600 + minutes * 60 + seconds)
        }
        guard scanner.atEnd else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let total = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(total) + Double(micros) / 1_000_000)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        var bytes: [UInt8] = []
        CivilDate.appendPadded(value, width: width, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Reads ASCII digits and separators from a byte array, one field at a time.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func digit() -> Int? {
        guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 48)
    }

    mutating func number(digits: Int) -> Int? {
        var value = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
