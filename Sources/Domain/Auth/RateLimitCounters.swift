import Foundation

/// Rate-limit windows counted where every instance sees them, so that N instances behind a
/// balancer give an attacker one budget, not N. Windows follow the same rule as an
/// instance's own limiter: a key's window starts at its first event and lasts `window`
/// seconds; a refused event is not counted.
public protocol RateLimitCounters: Sendable {
    /// Counts `amount` for `key` at `now` unless the key's live window would then exceed
    /// `limit`; returns `nil` when counted, else the seconds until the window ends.
    func take(_ key: String, amount: Int, limit: Int, window: TimeInterval, now: Date) async throws -> Int?
    /// Takes back `amount` of `key`'s live window (an attempt that did not count).
    func giveBack(_ key: String, amount: Int, now: Date) async throws
}

extension RateLimitCounters {
    /// Counts one event (see ``take(_:amount:limit:window:now:)``).
    public func take(_ key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Int? {
        try await take(key, amount: 1, limit: limit, window: window, now: now)
    }

    /// Takes back one event.
    public func giveBack(_ key: String, now: Date) async throws {
        try await giveBack(key, amount: 1, now: now)
    }
}
