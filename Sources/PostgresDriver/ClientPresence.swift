/// Whether the client a piece of work is for is still there to receive its answer.
///
/// The HTTP layer binds it for the requests whose work may be dropped (reads: nothing of
/// theirs must happen), and the database pool asks it when a queued job that waited at
/// least 50 ms reaches a connection (asking is a syscall: asked of every job it cost a
/// cheap read 15–30 % of its CPU): a read whose client closed its connection while it
/// waited is not run. When
/// a burst of slow searches was cut off (wrk stopping, an app closed, an attacker sending
/// and leaving), the ~60 requests left in the queue of 4 connections ran for their gone
/// clients and held the next request 3.7 s.
public struct ClientPresence: Sendable {
    /// The check itself: `true` once the client has gone.
    public let hasLeft: @Sendable () -> Bool

    public init(hasLeft: @escaping @Sendable () -> Bool) {
        self.hasLeft = hasLeft
    }
}
