import Domain
import Foundation
import HTTPServer
import Synchronization

/// Fixed-window counters per key (a client address, an email), in memory on this
/// instance. Answers how long to wait when a key is over its limit.
///
/// Keys come from clients, so the table is bounded twice: entries whose window has passed
/// are dropped as the table grows, and when `capacity` live keys are reached the oldest
/// windows are evicted. Callers validate keys first (an email is at most 254 bytes), so
/// the default 100,000 keys hold at most a few tens of megabytes.
public final class RateLimiter: Sendable {
    /// A limit: at most `count` events per `window`.
    public struct Limit: Sendable {
        /// Events allowed per window.
        public let count: Int
        /// The window's length in seconds.
        public let window: TimeInterval
        public init(count: Int, per window: TimeInterval) {
            self.count = count
            self.window = window
        }
    }

    private struct Window {
        var start: Date
        var count: Int
    }

    private struct Table {
        var windows: [String: Window] = [:]
        /// Size at which expired windows are next swept (doubles with the live set, so a
        /// sweep costs O(1) amortised per insert).
        var sweepAt = 1_024
    }

    private let limit: Limit
    private let capacity: Int
    private let table = Mutex(Table())
    private let now: @Sendable () -> Date

    /// Creates a limiter holding at most `capacity` keys.
    public init(_ limit: Limit, capacity: Int = 100_000, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.capacity = capacity
        self.now = now
    }

    /// Counts one event for `key`; throws ``AuthError/rateLimited(retryAfterSeconds:)``
    /// when the key is over its limit (the refused event is not counted).
    public func record(_ key: String) throws {
        let now = now()
        let retryAfter: Int? = table.withLock { table in
            var window = table.windows[key].flatMap { now.timeIntervalSince($0.start) < limit.window ? $0 : nil } ?? Window(start: now, count: 0)
            guard window.count < limit.count else { return secondsLeft(window, now) }
            window.count += 1
            if table.windows.updateValue(window, forKey: key) == nil, table.windows.count >= table.sweepAt { sweep(&table, now) }
            return nil
        }
        if let retryAfter { throw AuthError.rateLimited(retryAfterSeconds: retryAfter) }
    }

    /// Takes back one event counted for `key` in its current window (an attempt that
    /// turned out not to count, such as a right password).
    public func refund(_ key: String) {
        table.withLock { table in
            guard var window = table.windows[key], window.count > 0 else { return }
            window.count -= 1
            table.windows[key] = window
        }
    }

    /// How many keys are held (expired ones included until the next sweep).
    var keyCount: Int { table.withLock { $0.windows.count } }

    private func secondsLeft(_ window: Window, _ now: Date) -> Int {
        max(1, Int((limit.window - now.timeIntervalSince(window.start)).rounded(.up)))
    }

    private func sweep(_ table: inout Table, _ now: Date) {
        table.windows = table.windows.filter { now.timeIntervalSince($0.value.start) < limit.window }
        if table.windows.count >= capacity {
            // Every key is live: keep the newest windows (evicting the oldest forgets the
            // attempts closest to expiring anyway).
            let newest = table.windows.sorted { $0.value.start > $1.value.start }.prefix(capacity * 3 / 4)
            table.windows = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
        }
        table.sweepAt = min(capacity, max(1_024, table.windows.count * 2))
    }
}
