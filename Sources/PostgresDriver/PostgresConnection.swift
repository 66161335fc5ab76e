import CLibPQ
import Foundation

/// One libpq connection. Every call blocks, so a connection is only ever used on the pool
/// thread that owns it (see ``PostgresPool``) or on a thread a command-line tool owns.
///
/// Statements run through ``query(_:_:)`` are prepared once per connection and executed by
/// name afterwards; ``execute(script:)`` runs a multi-statement script unprepared (migrations).
public final class PostgresConnection {
    private var handle: OpaquePointer?
    private var preparedNames: [String: String] = [:]
    let mode: StatementMode

    /// How statements reach the server.
    public enum StatementMode: String, Sendable {
        /// Each statement prepared once per connection under a name, then executed by name:
        /// parsed and planned once (the default; a direct connection or a session pooler).
        case prepared
        /// Each statement sent with its parameters as the unnamed statement: parsed every
        /// time, but nothing outlives the transaction, so it works through PgBouncer in
        /// transaction mode (1.18 does not carry named statements between server
        /// connections). The session settings this connection would send at start-up are
        /// then expected from the role (`ALTER ROLE … SET`): PgBouncer refuses `options`.
        case unnamed
    }

    /// The texts of the statements prepared on this connection (tests compare them with
    /// the benchmark's copies in `bench/sql`).
    var preparedStatements: [String] { Array(preparedNames.keys) }
    /// Successful server round trips so far; the pool compares it before and after a job to
    /// know whether a failed job reached the server at all (and so may be retried).
    private(set) var successfulRoundTrips = 0

    /// Opens a connection. `url` is a `postgres://` URI or a libpq key/value string.
    ///
    /// Every session runs in UTC with the ISO date style, which the decoders rely on, without
    /// parallel query, and with `statementTimeout` as its `statement_timeout` when one is
    /// given: `.zero` for none, whatever the role's default (operators' commands), `nil`
    /// keeps the role's or database's own.
    public init(url: String, applicationName: String = "market09", connectTimeoutSeconds: Int = 5, statementTimeout: Duration? = nil,
                mode: StatementMode = .prepared) throws {
        self.mode = mode
        var keys = ["connect_timeout", "application_name", "dbname", "client_encoding", "options"]
        // No parallel query: starting workers cost a search 20–35 ms before its first row
        // (Gather Merge on 1 M posts), more than the whole query should, and under load
        // they take the cores other requests need.
        var options = "-c TimeZone=UTC -c DateStyle=ISO,YMD -c max_parallel_workers_per_gather=0"
        if let statementTimeout {
            let milliseconds = statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000
            options += " -c statement_timeout=\(statementTimeout == .zero ? 0 : max(1, milliseconds))"
        }
        var values = [String(connectTimeoutSeconds), applicationName, url, "UTF8", options]
        if mode == .unnamed {
            keys.removeLast()
            values.removeLast()
        }
        let connection = withCStringArray(keys) { keyPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keyPointers, valuePointers, 1)
            }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.lastMessage($0) } ?? "out of memory"
            if let connection { PQfinish(connection) }
            throw PostgresError(code: .connectionFailure, message: message)
        }
        // Server notices ("relation already exists, skipping") are not errors; libpq's
        // default processor would print them on stderr, outside our structured log.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        if mode == .unnamed { try requireSessionSettings() }
    }

    /// Through a pooler the start-up options are not sent: the role must supply what the
    /// decoders rely on, checked once per connection rather than misread later.
    private func requireSessionSettings() throws {
        let row = try query("SELECT current_setting('TimeZone'), current_setting('DateStyle')").single()
        let (zone, style): (String, String) = (try row.decode(0), try row.decode(1))
        guard ["UTC", "Etc/UTC"].contains(zone), style.hasPrefix("ISO") else {
            close()
            throw PostgresError(code: .connectionFailure, message: "DATABASE_STATEMENTS=unnamed needs the role's session settings "
                + "(TimeZone is \(zone), DateStyle \(style)): ALTER ROLE <role> SET TimeZone = 'UTC', then DateStyle = 'ISO, YMD', "
                + "statement_timeout and max_parallel_workers_per_gather = 0 (deploy/pgbouncer/roles.sql)")
        }
    }

    deinit {
        close()
    }

    /// Whether libpq still considers the connection usable. A server restart is only noticed
    /// by the next statement, so `true` does not promise the next call succeeds.
    public var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Closes the connection; later calls throw ``PostgresError/Code/connectionFailure``.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedNames.removeAll()
    }

    /// Runs one statement (see ``SQL``: its values bound where they are written), prepared
    /// on first use: the one way in for statements with values.
    @discardableResult
    public func query(_ statement: SQL) throws -> PostgresRows {
        let (text, parameters) = statement.rendered
        return try query(text, texts: parameters.map { $0.postgresText })
    }

    /// Runs `statement` and gives the number of rows it affected.
    @discardableResult
    public func execute(_ statement: SQL) throws -> Int {
        try query(statement).affectedRows
    }

    /// A statement's text with its parameters already in text form.
    func query(_ sql: String, texts: [String?]) throws -> PostgresRows {
        if mode == .unnamed { return try queryPlannedForValues(sql, texts: texts) }
        try refuseNULBytes(texts)
        let handle = try openHandle()
        let name = try preparedName(for: sql, parameterCount: texts.count, handle: handle)
        let result = withOptionalCStringArray(texts) { values in
            PQexecPrepared(handle, name, Int32(texts.count), values, nil, nil, 0)
        }
        return try check(result, handle: handle)
    }

    /// Runs one parameterised statement without keeping it prepared: PostgreSQL plans it
    /// for these parameter values every time. For statements whose best plan depends on
    /// the values (a search term that matches 0.1 % of posts wants the index, one that
    /// matches 70 % wants to walk the sort order); a prepared statement may settle on one
    /// generic plan for all of them after five runs.
    @discardableResult
    public func queryPlannedForValues(_ statement: SQL) throws -> PostgresRows {
        let (text, parameters) = statement.rendered
        return try queryPlannedForValues(text, texts: parameters.map { $0.postgresText })
    }

    private func queryPlannedForValues(_ sql: String, texts: [String?]) throws -> PostgresRows {
        try refuseNULBytes(texts)
        let handle = try openHandle()
        let result = withOptionalCStringArray(texts) { values in
            PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
        }
        return try check(result, handle: handle)
    }

    /// Runs a script of one or more statements (simple query protocol), which cannot carry
    /// values: a script with one is refused before it is sent.
    public func execute(script: SQL) throws {
        let (text, parameters) = script.rendered
        guard parameters.isEmpty else {
            throw PostgresError(message: "a script cannot carry values; run its statements one by one with query(_:)")
        }
        try execute(unsafeSQL: text)
    }

    /// Runs text as SQL as it is, statements and all (simple query protocol): the escape
    /// hatch for text that is SQL by nature — a migration's file. Anything else goes
    /// through ``SQL``; a test reads the callers.
    public func execute(unsafeSQL text: String) throws {
        let handle = try openHandle()
        _ = try check(PQexec(handle, text), handle: handle)
    }

    /// Streams rows into `table` with `COPY … FROM STDIN` (text format). `produce` is called
    /// until it returns `nil`; each chunk is sent as it is, so it must hold whole lines of
    /// tab-separated, backslash-escaped values (see ``copyEscape(_:)``). Returns the row count.
    @discardableResult
    public func copy(into table: String, columns: [String], _ produce: () throws -> String?) throws -> Int {
        let handle = try openHandle()
        let start = PQexec(handle, "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN")
        guard let start, PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try check(start, handle: handle)
            throw PostgresError(message: "COPY did not start")
        }
        PQclear(start)
        var failure: (any Error)?
        do {
            while let chunk = try produce() {
                let sent = chunk.utf8CString.withUnsafeBufferPointer { buffer in
                    PQputCopyData(handle, buffer.baseAddress, Int32(buffer.count - 1))
                }
                guard sent == 1 else { throw self.failure(handle: handle) }
            }
        } catch {
            failure = error
        }
        guard PQputCopyEnd(handle, failure == nil ? nil : "aborted by the client") == 1 else { throw self.failure(handle: handle) }
        let result = PQgetResult(handle)
        let rows = try check(result, handle: handle)
        while let extra = PQgetResult(handle) { PQclear(extra) }
        if let failure { throw failure }
        return rows.affectedRows
    }

    /// Escapes a value for COPY's text format; `nil` is `\N`.
    public static func copyEscape(_ value: String?) -> String {
        guard let value else { return "\\N" }
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\t": escaped += "\\t"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try execute(script: "BEGIN")
        do {
            let value = try body(self)
            try execute(script: "COMMIT")
            return value
        } catch {
            if isOpen { try? execute(script: "ROLLBACK") }
            throw error
        }
    }

    func openHandle() throws -> OpaquePointer {
        guard let handle else {
            throw PostgresError(code: .connectionFailure, message: "connection is closed")
        }
        return handle
    }

    func preparedName(for sql: String, parameterCount: Int, handle: OpaquePointer) throws -> String {
        if let name = preparedNames[sql] { return name }
        let name = "s\(preparedNames.count + 1)"
        _ = try check(PQprepare(handle, name, sql, Int32(parameterCount), nil), handle: handle)
        preparedNames[sql] = name
        return name
    }

    func check(_ result: OpaquePointer?, handle: OpaquePointer) throws -> PostgresRows {
        guard let result else {
            throw failure(handle: handle)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            successfulRoundTrips += 1
            return PostgresRows(result: result)
        default:
            defer { PQclear(result) }
            // An error without SQLSTATE was raised by libpq itself ("server closed the
            // connection unexpectedly"): the connection is gone even if libpq has not
            // noticed yet, so it is closed and reported as a connection failure.
            let message = Self.field(result, "M") ?? Self.lastMessage(handle)
            guard PQstatus(handle) == CONNECTION_OK, let sqlState = Self.field(result, "C") else {
                close()
                throw PostgresError(code: .connectionFailure, message: message)
            }
            let error = PostgresError(message: message, sqlState: sqlState, constraint: Self.field(result, "n"))
            if error.code == .connectionFailure { close() }
            throw error
        }
    }

    func failure(handle: OpaquePointer) -> PostgresError {
        let message = Self.lastMessage(handle)
        if PQstatus(handle) != CONNECTION_OK { close() }
        return PostgresError(code: .connectionFailure, message: message)
    }

    private static func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String? {
        PQresultErrorField(result, Int32(code.value)).map { String(cString: $0) }
    }

    private static func lastMessage(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStringArray<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    withOptionalCStringArray(strings + [nil]) { pointers in body(pointers) }
}
