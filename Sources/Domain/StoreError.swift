/// Why a store (the database) could not answer a request that was itself fine. The HTTP
/// layer answers each with its own 503; errors of the layer below say which one, if any.
public enum StoreUnavailable: Sendable, Equatable {
    /// Every connection stayed busy longer than a caller may wait.
    case busy
    /// The statement ran past its time limit and was cancelled.
    case timedOut
    /// The store cannot be reached (or is shutting down).
    case unreachable
    /// The work was not done: its client left before it reached the store.
    case clientGone
}

/// An error of a store, telling whether the store was unavailable.
public protocol StoreError: Error {
    /// Why the store could not answer, or `nil` when the error is about the request.
    var unavailable: StoreUnavailable? { get }
    /// Why the store cannot keep a value the request holds (a NUL byte in a text), in
    /// words for the client; `nil` otherwise.
    var refusedValue: String? { get }
}
