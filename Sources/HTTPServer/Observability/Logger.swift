import Foundation

/// Writes one JSON object per line to standard error.
///
/// Lines are built in memory and each goes to standard error whole, so lines from
/// different threads never interleave. Writing is synchronous: a line is written before
/// `log` returns, or, for a logger made with `holdingInfoLines`, `info` and `debug` lines
/// are held for up to 20 ms and written together (``LineWriter``). The access log is
/// written from the HTTP engine's threads, never from the cooperative pool.
public struct Logger: Sendable {
    /// Severity, ordered from most to least verbose.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// The name used in configuration and in log lines.
        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// Parses `debug`, `info`, `warning` or `error`.
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A value of a log field.
    public enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case string(String)
        case int(Int)
        case double(Double)
        /// Left out of the line (a field with nothing to say, such as no user).
        case absent

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .int(value) }
    }

    /// Lines below this level are dropped.
    public let minimumLevel: Level
    /// Where lines go; `nil`: standard error, written from the line's bytes as built (no
    /// `String` in between: two copies of every access-log line saved).
    private let sink: (@Sendable (String) -> Void)?
    /// Whether `info` and `debug` lines to standard error may wait up to 20 ms for company.
    private let holdsInfoLines: Bool

    /// A logger writing to standard error. With `holdingInfoLines`, `info` and `debug`
    /// lines are held up to 20 ms and written in one `write(2)` with the lines after them
    /// (a crash loses at most the last 20 ms of them); `warning` and `error` lines are
    /// written at once, after everything held.
    public init(minimumLevel: Level, holdingInfoLines: Bool = false) {
        self.minimumLevel = minimumLevel
        self.sink = nil
        self.holdsInfoLines = holdingInfoLines
    }

    /// A logger handing each line to `sink` (tests capture lines this way).
    public init(minimumLevel: Level, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.holdsInfoLines = false
    }

    /// Logs `message` with `fields` when `level` is enabled.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
        guard level >= minimumLevel else { return }
        var json = JSONWriter(capacity: 256)
        json.object { json in
            json.field("time", Timestamp(Date()))
            json.field("level", level.name)
            json.field("message", message)
            for (key, value) in fields {
                switch value {
                case .string(let text): json.field(dynamic: key, text)
                case .int(let number): json.field(dynamic: key, number)
                case .double(let number): json.field(dynamic: key, JSONNumber(value: number))
                case .absent: continue
                }
            }
        }
        if let sink {
            sink(String(decoding: json.bytes, as: UTF8.self))
        } else if holdsInfoLines && level <= .info {
            LineWriter.standardError.hold(json.bytes)
        } else {
            LineWriter.standardError.write(json.bytes)
        }
    }

    /// Writes every held line to standard error before returning (the process does this
    /// itself when it exits).
    public static func flush() {
        LineWriter.standardError.flush()
    }

    /// Logs at `info`.
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.info, message, fields) }
    /// Logs at `warning`.
    public func warning(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.warning, message, fields) }
    /// Logs at `error`.
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.error, message, fields) }
}

/// A finite double as a JSON number (`null` otherwise).
private struct JSONNumber: JSONWritable {
    public let value: Double

    public func write(to json: inout JSONWriter) {
        if value.isFinite { json.ascii(quoted: false) { $0.append(contentsOf: String(value).utf8) } } else { json.null() }
    }
}

/// A log line's time: `2026-12-02T07:35:00.123Z`, UTC to the millisecond, written in place
/// through libc's `gmtime_r` (a `Date.ISO8601FormatStyle` per access-log line cost more
/// than the rest of the line).
struct Timestamp: JSONWritable {
    public let date: Date

    public init(_ date: Date) {
        self.date = date
    }

    public func write(to json: inout JSONWriter) {
        // A log line's time is now: never before 1970, so plain division floors.
        let milliseconds = max(0, Int((date.timeIntervalSince1970 * 1000).rounded(.down)))
        var seconds = time_t(milliseconds / 1000)
        let fraction = milliseconds % 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        json.ascii { bytes in
            func append(_ value: Int, width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                var rest = value
                while divisor > 0 {
                    bytes.append(UInt8(48 + rest / divisor % 10))
                    rest %= divisor
                    divisor /= 10
                }
            }
            append(Int(parts.tm_year) + 1900, width: 4)
            bytes.append(UInt8(ascii: "-"))
            append(Int(parts.tm_mon) + 1, width: 2)
            bytes.append(UInt8(ascii: "-"))
            append(Int(parts.tm_mday), width: 2)
            bytes.append(UInt8(ascii: "T"))
            append(Int(parts.tm_hour), width: 2)
            bytes.append(UInt8(ascii: ":"))
            append(Int(parts.tm_min), width: 2)
            bytes.append(UInt8(ascii: ":"))
            append(Int(parts.tm_sec), width: 2)
            bytes.append(UInt8(ascii: "."))
            append(fraction, width: 3)
            bytes.append(UInt8(ascii: "Z"))
        }
    }
}
