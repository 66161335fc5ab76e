import Dispatch
import Foundation
import Synchronization

/// SIGTERM and SIGINT, watched from the moment this is created: `serve` creates it before
/// it starts anything, so a signal that arrives while the server is starting (or just
/// after it logs `listening`) is kept and ends ``wait()`` at once.
///
/// The default handlers are replaced by dispatch sources, so a signal starts a graceful
/// shutdown instead of killing the process. Before, the sources were installed only when
/// `serve` began waiting, after logging `listening`: a SIGTERM sent the moment that line
/// appeared could land after `SIG_IGN` and before the source, and was lost; the server
/// then ran until killed (a CI run hung on it).
final class ShutdownSignal: Sendable {
    private enum State {
        case watching
        case waiting(CheckedContinuation<Int32, Never>)
        case received(Int32)
    }

    private let state = Mutex(State.watching)
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Starts watching SIGTERM and SIGINT.
    init() {
        let signals = [SIGTERM, SIGINT]
        for number in signals { signal(number, SIG_IGN) }
        sources = Mutex(signals.map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) })
        sources.withLock { sources in
            for (number, source) in zip(signals, sources) {
                source.setEventHandler { [weak self] in self?.receive(number) }
                source.resume()
            }
        }
    }

    deinit {
        sources.withLock { $0.forEach { $0.cancel() } }
    }

    /// Returns the first signal received since ``init()``, waiting for one if none came yet.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let received: Int32? = state.withLock { state in
                if case .received(let number) = state { return number }
                state = .waiting(continuation)
                return nil
            }
            if let received { continuation.resume(returning: received) }
        }
    }

    private func receive(_ number: Int32) {
        let waiter: CheckedContinuation<Int32, Never>? = state.withLock { state in
            switch state {
            case .watching:
                state = .received(number)
                return nil
            case .waiting(let continuation):
                state = .received(number)
                return continuation
            case .received:
                return nil
            }
        }
        waiter?.resume(returning: number)
    }
}
