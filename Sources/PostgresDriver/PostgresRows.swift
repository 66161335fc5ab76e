import CLibPQ

/// The rows of one statement's result. Owns the libpq result and frees it when released.
///
/// Not `Sendable`: it lives on the pool thread that ran the statement; callers decode rows
/// into their own `Sendable` values before leaving the connection's closure.
public final class PostgresRows: Sequence {
    private let result: OpaquePointer

    init(result: OpaquePointer) {
        self.result = result
    }

    deinit {
        PQclear(result)
    }

    /// The number of rows.
    public var count: Int { Int(PQntuples(result)) }

    /// The number of rows the command touched (`INSERT`, `UPDATE`, `DELETE`), 0 otherwise.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The row at `index`.
    public subscript(index: Int) -> PostgresRow {
        PostgresRow(rows: self, index: Int32(index))
    }

    /// The first row, if any.
    public var first: PostgresRow? { count > 0 ? self[0] : nil }

    /// The first row of a statement that always returns one (`INSERT … RETURNING`, an
    /// aggregate); a result without rows is an error that says so, not a trap.
    public func single() throws -> PostgresRow {
        guard let first else { throw PostgresError(code: .decoding, message: "the statement returned no row where one was expected") }
        return first
    }

    /// Iterates the rows in order.
    public func makeIterator() -> AnyIterator<PostgresRow> {
        var index = 0
        return AnyIterator { [self] in
            guard index < count else { return nil }
            defer { index += 1 }
            return self[index]
        }
    }

    fileprivate func text(row: Int32, column: Int32) -> String? {
        guard column < PQnfields(result) else { return nil }
        if PQgetisnull(result, row, column) == 1 { return nil }
        return String(cString: PQgetvalue(result, row, column))
    }

    fileprivate func columnName(_ column: Int32) -> String {
        column < PQnfields(result) ? String(cString: PQfname(result, column)) : "#\(column)"
    }
}

/// One row of a ``PostgresRows`` result, decoded column by column.
public struct PostgresRow {
    fileprivate let rows: PostgresRows
    fileprivate let index: Int32

    /// Decodes column `column` (0-based) as `T`; `NULL` decodes only into optionals.
    public func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws -> T {
        guard let text = rows.text(row: index, column: Int32(column)) else {
            if let null = T.postgresNull { return null }
            throw PostgresError(code: .decoding, message: "column \(rows.columnName(Int32(column))) is NULL or missing; expected \(T.self)")
        }
        return try T(postgresText: text)
    }
}
