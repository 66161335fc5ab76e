import Foundation
import Synchronization

/// A clock tests move by hand: starts at the real time and only moves when told.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at `start` (default: now, truncated to whole milliseconds).
    public init(start: Date = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)) {
        current = Mutex(start)
    }

    /// The current instant.
    public var now: Date { current.withLock { $0 } }

    /// A `now` closure for dependencies.
    public var source: @Sendable () -> Date { { [self] in self.now } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
