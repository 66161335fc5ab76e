/// A pool as one caller's work uses it: the same connections and queue, with the caller's
/// ``ClientPresence`` on every job, so work for a client that has left is dropped once it
/// has waited (``PostgresPool/withConnection(presence:_:)``). A value: repositories hold one
/// and make a copy per request (``scoped(presence:)``).
public struct ScopedPool: Sendable {
    public let pool: PostgresPool
    /// The client the work is for; `nil`: work that runs whoever waits for it.
    public let presence: ClientPresence?

    public init(_ pool: PostgresPool, presence: ClientPresence? = nil) {
        self.pool = pool
        self.presence = presence
    }

    /// The same pool for work of the client `presence` describes.
    public func scoped(presence: ClientPresence?) -> ScopedPool {
        ScopedPool(pool, presence: presence)
    }

    /// See ``PostgresPool/withConnection(presence:_:)``.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.withConnection(presence: presence, body)
    }

    /// See ``PostgresPool/statement(maxAttempts:presence:_:)``.
    @discardableResult
    public func statement<T: Sendable>(maxAttempts: Int = 3, _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.statement(maxAttempts: maxAttempts, presence: presence, body)
    }

    /// See ``PostgresPool/transaction(maxAttempts:presence:_:)``.
    @discardableResult
    public func transaction<T: Sendable>(maxAttempts: Int = 3, _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.transaction(maxAttempts: maxAttempts, presence: presence, body)
    }

    /// See ``PostgresPool/read(_:presence:decode:)``.
    public func read<T: Sendable>(_ statement: SQL, decode: @escaping @Sendable (PostgresRows) throws -> T) async throws -> T {
        try await pool.read(statement, presence: presence, decode: decode)
    }
}
