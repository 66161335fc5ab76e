import Foundation

/// Runs blocking work (process spawning, file I/O, a one-off libpq connection) on a thread
/// of its own, so the caller's `async` context never blocks the cooperative thread pool.
public enum BlockingWork {
    /// Runs `body` on a new thread and returns its result.
    public static func run<T: Sendable>(
        name: String = "blocking-work",
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.name = name
            thread.start()
        }
    }
}
