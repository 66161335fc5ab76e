/// What one request asks of the stores it uses: that its reads include its own latest write
/// (read-your-writes, where reads may go to replicas), and that work it no longer needs is
/// skipped (its client has left). The HTTP layer makes one per request and hands it down
/// explicitly: use cases and stores are ``RequestScoped``.
public struct RequestScope: Sendable {
    /// A position in the store's write log that the request's reads must include (its own
    /// last write); `nil`: whatever the store's replicas hold (their bounded lag).
    public var readsAfter: UInt64?
    /// Whether the client has gone; its reads are then dropped once they have waited.
    /// `nil`: the work is wanted whoever waits for it (writes, jobs).
    public var clientHasLeft: (@Sendable () -> Bool)?
    /// The client's address (after the trusted proxies), for what the stores record of who
    /// did what: the audit log of an admin's changes.
    public var client: String?

    public init(readsAfter: UInt64? = nil, clientHasLeft: (@Sendable () -> Bool)? = nil, client: String? = nil) {
        self.readsAfter = readsAfter
        self.clientHasLeft = clientHasLeft
        self.client = client
    }
}

/// A store, or a use case over stores, that can work for one request.
public protocol RequestScoped: Sendable {
    /// The same store (use case) working for the request `scope` describes: cheap, a copy
    /// that shares everything else.
    func scoped(_ scope: RequestScope) -> Self
}
