import CLibPQ

/// Asks the server to cancel what a connection is running, from any thread (libpq's
/// `PQcancel`, which opens a short connection of its own): the way out of a statement that
/// runs for minutes (an index build) when the process must stop.
///
/// `@unchecked Sendable`: the `PGcancel` object is documented safe to use from any thread
/// (even a signal handler) once made; it is made on the connection's thread in ``init``
/// and freed once, in `deinit`, when no other reference is left.
public final class PostgresCanceller: @unchecked Sendable {
    private let cancel: OpaquePointer

    /// Made on the thread that owns `connection`, before it starts the statement.
    public init(_ connection: PostgresConnection) throws {
        guard let cancel = PQgetCancel(try connection.openHandle()) else {
            throw PostgresError(code: .connectionFailure, message: "no cancel handle for the connection")
        }
        self.cancel = cancel
    }

    /// Sends the cancel request. The statement then fails with a cancellation error, or
    /// finishes if it was done already; nothing happens when nothing runs.
    public func cancelStatement() {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &buffer, Int32(buffer.count))
    }

    deinit { PQfreeCancel(cancel) }
}
