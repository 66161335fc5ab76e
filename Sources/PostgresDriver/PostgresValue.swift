import Codecs
import Foundation

/// A Swift value that can be sent as a statement parameter in PostgreSQL's text format.
public protocol PostgresEncodable: Sendable {
    /// The parameter's text form, or `nil` for SQL `NULL`.
    var postgresText: String? { get }
}

/// A Swift value that can be read from a column in PostgreSQL's text format.
public protocol PostgresDecodable {
    /// Parses the column's text; throws ``PostgresError/Code/decoding`` on malformed input.
    init(postgresText text: String) throws
    /// The value for SQL `NULL`, or `nil` when the type cannot represent it.
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    /// Non-optional types cannot represent `NULL`.
    public static var postgresNull: Self? { nil }
}

func decodingError(_ text: String, as type: Any.Type) -> PostgresError {
    PostgresError(code: .decoding, message: "cannot decode \(String(reflecting: type)) from '\(text.prefix(64))'")
}

extension String: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { self }
    public init(postgresText text: String) { self = text }
}

extension Int: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { String(self) }
    public init(postgresText text: String) throws {
        guard let value = Int(text) else { throw decodingError(text, as: Int.self) }
        self = value
    }
}

extension Double: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { String(self) }
    public init(postgresText text: String) throws {
        guard let value = Double(text) else { throw decodingError(text, as: Double.self) }
        self = value
    }
}

extension Bool: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? { self ? "t" : "f" }
    public init(postgresText text: String) throws {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw decodingError(text, as: Bool.self)
        }
    }
}

extension UUID: PostgresEncodable, PostgresDecodable {
    /// PostgreSQL reads either case and writes lower case (``UUID/lowercasedText``).
    public var postgresText: String? { lowercasedText }
    public init(postgresText text: String) throws {
        guard let value = UUID(text: text) else { throw decodingError(text, as: UUID.self) }
        self = value
    }
}

extension Date: PostgresEncodable, PostgresDecodable {
    /// ISO 8601 in UTC with microseconds, which `timestamptz` parses exactly.
    public var postgresText: String? { PostgresTimestamp.format(self) }
    /// Parses `timestamptz` output in the ISO date style the pool sets on every connection.
    public init(postgresText text: String) throws {
        guard let value = PostgresTimestamp.parse(text) else { throw decodingError(text, as: Date.self) }
        self = value
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// A switch, not `flatMap(\.postgresText)`: a key path over the generic `Wrapped` is
    /// made at run time on every call (demangling its type): 10 % of a post detail's
    /// server CPU under perf, for its optional viewer parameter.
    public var postgresText: String? {
        switch self {
        case .some(let value): value.postgresText
        case .none: nil
        }
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresText text: String) throws { self = try Wrapped(postgresText: text) }
    public static var postgresNull: Self? { .some(nil) }
}

/// Bytes sent as a `bytea` parameter (hex text format).
public struct PostgresBytes: PostgresEncodable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var postgresText: String? {
        "\\x" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// A `text[]` parameter: each element quoted and escaped, so any text is one element.
public struct PostgresTextArray: PostgresEncodable {
    public let values: [String]

    public init(_ values: [String]) {
        self.values = values
    }

    /// `{"a","b"}`, each element quoted with its `\` and `"` escaped, written byte by byte:
    /// Foundation's `replacingOccurrences` bridged every element through NSString, 16 % of
    /// a Top 10 request's server CPU for its ten ids (perf).
    public var postgresText: String? {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(2 + values.reduce(0) { $0 + $1.utf8.count + 3 })
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
