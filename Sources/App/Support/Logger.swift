import Foundation

/// Writes one JSON object per line to standard error.
///
/// Lines are built in memory and written with a single `write(2)`, so lines from
/// different threads never interleave. Writing is synchronous; the access log is written
/// from the HTTP engine's threads, never from the cooperative pool.
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

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .int(value) }
    }

    /// Lines below this level are dropped.
    public let minimumLevel: Level
    private let sink: @Sendable (String) -> Void

    /// A logger writing to standard error.
    public init(minimumLevel: Level) {
        self.minimumLevel = minimumLevel
        self.sink = { line in
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }

    /// A logger handing each line to `sink` (tests capture lines this way).
    public init(minimumLevel: Level, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// Logs `message` with `fields` when `level` is enabled.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
        guard level >= minimumLevel else { return }
        var line = "{\"time\":\"\(Self.timestamp())\",\"level\":\"\(level.name)\",\"message\":"
        JSONText.appendString(message, to: &line)
        for (key, value) in fields {
            line += ","
            JSONText.appendString(key, to: &line)
            line += ":"
            switch value {
            case .string(let text): JSONText.appendString(text, to: &line)
            case .int(let number): line += String(number)
            case .double(let number): line += number.isFinite ? String(number) : "null"
            }
        }
        line += "}"
        sink(line)
    }

    /// Logs at `info`.
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.info, message, fields) }
    /// Logs at `warning`.
    public func warning(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.warning, message, fields) }
    /// Logs at `error`.
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.error, message, fields) }

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}

/// Minimal JSON text helpers for hand-built lines.
enum JSONText {
    /// Appends `text` as a quoted JSON string, escaping quotes, backslashes and controls.
    static func appendString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
