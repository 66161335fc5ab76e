import Domain
import Foundation
import Synchronization

/// Fixed-window counters per key (a client address, an email), in memory on this
/// instance. Answers how long to wait when a key is over its limit.
public final class RateLimiter: Sendable {
    /// A limit: at most `count` events per `window`.
    public struct Limit: Sendable {
        /// Events allowed per window.
        public let count: Int
        /// The window's length in seconds.
        public let window: TimeInterval
        /// Creates a limit.
        public init(count: Int, per window: TimeInterval) {
            self.count = count
            self.window = window
        }
    }

    private struct Window {
        var start: Date
        var count: Int
    }

    private let limit: Limit
    private let windows = Mutex<[String: Window]>([:])
    private let now: @Sendable () -> Date

    /// Creates a limiter.
    public init(_ limit: Limit, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.now = now
    }

    /// Counts one event for `key`; throws ``AuthError/rateLimited(retryAfterSeconds:)``
    /// when the key is over its limit (the refused event is not counted).
    public func record(_ key: String) throws {
        let now = now()
        let retryAfter: Int? = windows.withLock { windows in
            if windows.count > 100_000 { windows = windows.filter { now.timeIntervalSince($0.value.start) < limit.window } }
            var window = windows[key] ?? Window(start: now, count: 0)
            if now.timeIntervalSince(window.start) >= limit.window { window = Window(start: now, count: 0) }
            guard window.count < limit.count else {
                return max(1, Int((limit.window - now.timeIntervalSince(window.start)).rounded(.up)))
            }
            window.count += 1
            windows[key] = window
            return nil
        }
        if let retryAfter { throw AuthError.rateLimited(retryAfterSeconds: retryAfter) }
    }

    /// Checks without counting (for failures counted only when they happen).
    public func check(_ key: String) throws {
        let now = now()
        let retryAfter: Int? = windows.withLock { windows in
            guard let window = windows[key], now.timeIntervalSince(window.start) < limit.window, window.count >= limit.count else { return nil }
            return max(1, Int((limit.window - now.timeIntervalSince(window.start)).rounded(.up)))
        }
        if let retryAfter { throw AuthError.rateLimited(retryAfterSeconds: retryAfter) }
    }
}

/// The client's address: the socket peer, or — when the peer is a trusted proxy — the
/// right-most `X-Forwarded-For` entry that is not itself a trusted proxy.
public struct ClientAddress: Sendable {
    private let trustedProxies: Set<String>

    /// Creates the resolver with the proxies whose `X-Forwarded-For` is believed.
    public init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies)
    }

    /// The address to rate-limit `request` by.
    public func of(_ request: HTTPRequest) -> String {
        let peer = request.remoteAddress ?? "unknown"
        guard trustedProxies.contains(peer), let forwarded = request.headers["X-Forwarded-For"] else { return peer }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trustedProxies.contains($0) } ?? peer
    }
}
