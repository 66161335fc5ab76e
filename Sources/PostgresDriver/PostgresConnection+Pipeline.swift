import CLibPQ

/// One statement of a pipeline: its text and its parameters in text form.
struct PipelinedStatement: Sendable {
    let sql: String
    let texts: [String?]
}

extension PostgresConnection {
    /// Runs independent single-statement reads in one pipeline (PostgreSQL's pipeline mode):
    /// every statement is sent, then one Sync, and the results are read back in order, so
    /// `n` reads cost the connection one round trip and the server one wake-up instead of
    /// `n` of each. A result per statement, in order.
    ///
    /// The statements between two Syncs form one implicit transaction, so a statement that
    /// fails makes the server skip the rest (`PGRES_PIPELINE_ABORTED`): those are run again
    /// one by one afterwards, so one caller's error is never another's. Each statement still
    /// takes its own snapshot (read committed), so a read sees every commit that preceded
    /// it, as it would alone. Meant for reads of a few milliseconds: a write here would
    /// commit or roll back with its neighbours, and PostgreSQL's `statement_timeout` runs
    /// from the first statement to the Sync, so one slow read would spend the others' time
    /// (a timeout fails the statement it interrupts; the rest are sent again, each with a
    /// fresh timeout).
    ///
    /// A connection lost midway fails every statement not yet answered with
    /// ``PostgresError/Code/connectionFailure`` (the connection is closed). Through
    /// PgBouncer's transaction mode (``StatementMode/unnamed``) the statements run one by one.
    func pipeline(_ statements: [PipelinedStatement]) -> [Result<PostgresRows, any Error>] {
        func alone(_ statement: PipelinedStatement) -> Result<PostgresRows, any Error> {
            Result { try query(statement.sql, texts: statement.texts) }
        }
        guard mode == .prepared, statements.count > 1 else { return statements.map(alone) }
        let handle: OpaquePointer
        let names: [String]
        do {
            handle = try openHandle()
            // Statements seen for the first time are prepared first, each in a round trip
            // of its own: once per statement text and connection.
            names = try statements.map { try preparedName(for: $0.sql, parameterCount: $0.texts.count, handle: handle) }
        } catch {
            return statements.map { _ in .failure(error) }
        }
        guard PQenterPipelineMode(handle) == 1 else { return statements.map(alone) }
        for (statement, name) in zip(statements, names) {
            let sent = withOptionalCStringArray(statement.texts) { values in
                PQsendQueryPrepared(handle, name, Int32(statement.texts.count), values, nil, nil, 0)
            }
            guard sent == 1 else { return brokenPipeline(statements.count, answered: [], handle: handle) }
        }
        guard PQpipelineSync(handle) == 1 else { return brokenPipeline(statements.count, answered: [], handle: handle) }

        var results: [Result<PostgresRows, any Error>?] = []
        results.reserveCapacity(statements.count)
        for _ in statements {
            guard let result = PQgetResult(handle) else { return brokenPipeline(statements.count, answered: results, handle: handle) }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                results.append(nil)
            } else {
                results.append(Result { try check(result, handle: handle) })
                guard isOpen else { return brokenPipeline(statements.count, answered: results, handle: handle) }
            }
            // Each statement's results end with a NULL.
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        guard let sync = PQgetResult(handle), PQresultStatus(sync) == PGRES_PIPELINE_SYNC else {
            return brokenPipeline(statements.count, answered: results, handle: handle)
        }
        PQclear(sync)
        guard PQexitPipelineMode(handle) == 1 else { return brokenPipeline(statements.count, answered: results, handle: handle) }
        return zip(statements, results).map { statement, result in result ?? alone(statement) }
    }

    /// The answers so far, and a connection failure for every statement after them; the
    /// connection is closed (its protocol state is unknown). `handle` is read only while
    /// the connection is open (``check(_:handle:)`` may have closed it already).
    private func brokenPipeline(_ count: Int, answered: [Result<PostgresRows, any Error>?], handle: OpaquePointer) -> [Result<PostgresRows, any Error>] {
        let error = isOpen ? failure(handle: handle) : PostgresError(code: .connectionFailure, message: "the connection was lost during a pipeline")
        close()
        let failed: Result<PostgresRows, any Error> = .failure(error)
        return answered.map { $0 ?? failed } + Array(repeating: failed, count: count - answered.count)
    }
}
