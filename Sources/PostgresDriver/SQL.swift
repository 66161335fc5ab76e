/// A statement whose values are bound where they are written, as postgres-nio's
/// interpolated queries do: `"UPDATE users SET nickname = \(name) WHERE id = \(id)"` is
/// sent as `… = $1 WHERE id = $2` with the two values as parameters, so a reader never
/// matches `$6` to the sixth element of an array, and a value can never become SQL text.
/// Text that is SQL (a fragment built from constants) goes in with `\(unescaped:)`, another
/// statement's pieces with `\(fragment)`; both keep their own bindings, renumbered.
public struct SQL: ExpressibleByStringInterpolation, Sendable {
    fileprivate enum Piece: Sendable {
        case text(String)
        case value(any PostgresEncodable)
    }

    private var pieces: [Piece] = []

    public init(stringLiteral text: String) {
        pieces = [.text(text)]
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// The text with `$1`, `$2`, … in order of appearance, and the values they stand for.
    public var rendered: (text: String, parameters: [any PostgresEncodable]) {
        var text = ""
        var parameters: [any PostgresEncodable] = []
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .value(let value):
                parameters.append(value)
                text += "$\(parameters.count)"
            }
        }
        return (text, parameters)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.text(literal)) }
        }

        /// A value, bound as the next parameter.
        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            pieces.append(.value(value))
        }

        /// An optional value: `NULL` when `nil` (its own overload, so the compiler knows
        /// an optional is meant and does not warn of a debug description).
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            pieces.append(.value(value))
        }

        /// SQL text itself, unchecked (postgres-nio's name): only for identifiers and
        /// fragments made of constants, never for input.
        public mutating func appendInterpolation(unescaped text: String) {
            pieces.append(.text(text))
        }

        /// A number written into the text (a LIMIT the planner should know).
        public mutating func appendInterpolation(raw number: Int) {
            pieces.append(.text(String(number)))
        }

        /// Another statement's pieces, its values renumbered in place.
        public mutating func appendInterpolation(_ fragment: SQL) {
            pieces += fragment.pieces
        }
    }
}

extension SQL {
    /// Whether it holds nothing.
    public var isEmpty: Bool { pieces.allSatisfy { if case .text(let text) = $0 { text.isEmpty } else { false } } }

    /// The two statements' pieces one after the other, values renumbered.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var joined = lhs
        joined.pieces += rhs.pieces
        return joined
    }

    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.pieces += rhs.pieces
    }
}

extension Array where Element == SQL {
    /// The fragments with `separator` (SQL text) between them.
    public func joined(separator: String) -> SQL {
        var joined = SQL(stringLiteral: "")
        for (index, fragment) in enumerated() {
            if index > 0 { joined += SQL(stringLiteral: separator) }
            joined += fragment
        }
        return joined
    }
}
