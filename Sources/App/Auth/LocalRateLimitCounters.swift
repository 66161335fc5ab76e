import Domain
import Foundation
import HTTPServer
import Synchronization

/// ``RateLimitCounters`` in this instance's memory, for a deployment without shared
/// counters (a single instance). Windows start at a key's first amount, as the shared ones
/// do; at `capacity` keys, ended windows are dropped, then everything (a flood of new keys
/// costs its sender its own counts, never unbounded memory).
final class LocalRateLimitCounters: RateLimitCounters {
    private let capacity: Int
    private let windows = Mutex<[String: (endsAt: Date, count: Int)]>([:])

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    func take(_ key: String, amount: Int, limit: Int, window: TimeInterval, now: Date) async throws -> Int? {
        windows.withLock { windows in
            var current = windows[key].flatMap { $0.endsAt > now ? $0 : nil } ?? (endsAt: now.addingTimeInterval(window), count: 0)
            guard current.count + amount <= limit else { return max(1, Int(current.endsAt.timeIntervalSince(now).rounded(.up))) }
            current.count += amount
            if windows.count >= capacity && windows[key] == nil {
                windows = windows.filter { $0.value.endsAt > now }
                if windows.count >= capacity { windows.removeAll(keepingCapacity: true) }
            }
            windows[key] = current
            return nil
        }
    }

    func giveBack(_ key: String, amount: Int, now: Date) async throws {
        windows.withLock { windows in
            guard let current = windows[key], current.endsAt > now else { return }
            windows[key] = (endsAt: current.endsAt, count: max(0, current.count - amount))
        }
    }
}
