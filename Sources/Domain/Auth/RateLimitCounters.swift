import Foundation

/// Rate-limit windows counted where every instance sees them, so that N instances behind a
/// balancer give an attacker one budget, not N. Windows follow the same rule as an
/// instance's own limiter: a key's window starts at its first event and lasts `window`
/// seconds; a refused event is not counted.
public protocol RateLimitCounters: Sendable {
    /// Counts one event for `key` at `now` unless `limit` events are already counted in the
    /// key's live window; returns `nil` when counted, else the seconds until the window ends.
    func take(_ key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Int?
    /// Takes back one event of `key`'s live window (an attempt that did not count).
    func giveBack(_ key: String, now: Date) async throws
}
