/// A statement whose values are bound where they are written, as postgres-nio's
/// interpolated queries do: `"UPDATE users SET nickname = \(name) WHERE id = \(id)"` is
/// sent as `… = $1 WHERE id = $2` with the two values as parameters, so a reader never
/// matches `$6` to the sixth element of an array, and a value can never become SQL text.
/// Text that is SQL (a fragment built from constants) goes in with `\(raw:)`, another
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

        /// SQL text itself: only for fragments made of constants, never for input.
        public mutating func appendInterpolation(raw text: String) {
            pieces.append(.text(text))
        }

        /// Another statement's pieces, its values renumbered in place.
        public mutating func appendInterpolation(_ fragment: SQL) {
            pieces += fragment.pieces
        }
    }
}

extension PostgresConnection {
    /// Runs `statement` (see ``SQL``), prepared on first use.
    @discardableResult
    public func query(sql statement: SQL) throws -> PostgresRows {
        let (text, parameters) = statement.rendered
        return try query(text, parameters)
    }

    /// Runs `statement` and gives the number of rows it affected.
    @discardableResult
    public func execute(sql statement: SQL) throws -> Int {
        try query(sql: statement).affectedRows
    }
}
