import App
import Dispatch
import Foundation
import Synchronization

/// Waits for SIGTERM or SIGINT. The default handlers are replaced by dispatch sources, so
/// a signal starts a graceful shutdown instead of killing the process.
enum ShutdownSignal {
    /// Returns the first SIGTERM/SIGINT received after the call.
    static func next() async -> Int32 {
        let signals = [SIGTERM, SIGINT]
        for number in signals { signal(number, SIG_IGN) }
        let sources = signals.map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        defer { sources.forEach { $0.cancel() } }
        return await withCheckedContinuation { continuation in
            let resumed = Mutex(false)
            for (number, source) in zip(signals, sources) {
                source.setEventHandler {
                    let first = resumed.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: number) }
                }
                source.resume()
            }
        }
    }
}
