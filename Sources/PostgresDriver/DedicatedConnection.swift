import Synchronization

/// One PostgreSQL connection of a background thread's own, outside every pool: opened on
/// demand, dropped on any error (the next use reconnects), used by one caller at a time.
///
/// For the work that must not wait behind the requests it serves: the replica-lag
/// measurements that route reads, the revocation poll that ends sessions everywhere.
/// Blocking: call it from a thread of its own, never from the cooperative pool.
public final class DedicatedConnection: Sendable {
    private let url: String
    private let mode: PostgresConnection.StatementMode
    private let applicationName: String
    private let connection = Mutex<PostgresConnection?>(nil)

    public init(url: String, mode: PostgresConnection.StatementMode, applicationName: String) {
        self.url = url
        self.mode = mode
        self.applicationName = applicationName
    }

    /// Runs `body` on the connection, opening it first if needed (2 s to connect, 2 s per
    /// statement); on any error the connection is closed and the error thrown.
    public func run<T: Sendable>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            do {
                if connection == nil {
                    connection = try PostgresConnection(url: url, applicationName: applicationName, connectTimeoutSeconds: 2,
                                                        statementTimeout: .seconds(2), mode: mode)
                }
                return try body(connection!)
            } catch {
                connection?.close()
                connection = nil
                throw error
            }
        }
    }

    /// Closes the connection if open.
    public func close() { connection.withLock { $0?.close(); $0 = nil } }
}
