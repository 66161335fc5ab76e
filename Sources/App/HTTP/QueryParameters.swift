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

    /// An integer path parameter (a database id); 400 naming it otherwise.
    func pathID(_ name: String = "id") throws -> Int {
        guard let text = pathParameters[name], let value = Int(text), value > 0 else {
            throw APIError.invalidParameter(name, "\(name) must be a positive integer")
        }
        return value
    }
}

/// Dates on the wire: ISO 8601 with the Korea offset on output; any offset (or `Z`) on
/// input, with or without fractional seconds.
enum WireDate {
    private static let korea = TimeZone(secondsFromGMT: 9 * 3600)!
    private static let output = Date.ISO8601FormatStyle(timeSeparator: .colon, timeZoneSeparator: .colon, timeZone: korea)

    static func format(_ date: Date) -> String {
        date.formatted(output)
    }

    /// Parses input; 400 naming `field` when it is not ISO 8601 with an offset.
    static func parse(_ text: String, field: String) throws -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        throw APIError.invalidBody("\(field) must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T10:00:00+09:00", field: field)
    }
}
