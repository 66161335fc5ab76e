import Domain
import Foundation
import HTTPServer

/// A limit that protects accounts, held across instances: this instance's own
/// ``RateLimiter`` answers first (a flood from one address is refused in memory, with no
/// database round trip), then the shared ``RateLimitCounters`` decide, so three instances
/// behind a balancer allow what one would. Without counters (one instance, the CLI) it is
/// the local limiter alone.
///
/// The local window never counts more than the shared one, so a local refusal is one the
/// shared counters would make too.
public struct SharedRateLimiter: Sendable {
    /// The namespace of this limit's keys in the shared counters (`pw-email`, `tok-addr`…).
    let name: String
    let limit: RateLimiter.Limit
    let local: RateLimiter
    let shared: (any RateLimitCounters)?
    let now: @Sendable () -> Date

    init(name: String, _ limit: RateLimiter.Limit, shared: (any RateLimitCounters)?, now: @escaping @Sendable () -> Date) {
        self.name = name
        self.limit = limit
        self.local = RateLimiter(limit, now: now)
        self.shared = shared
        self.now = now
    }

    /// Counts one event for `key`; throws ``AuthError/rateLimited(retryAfterSeconds:)`` when
    /// the key is over its limit here or across instances (then nothing is counted).
    func record(_ key: String) async throws {
        try local.record(key)
        guard let shared else { return }
        let refusal: Int?
        do {
            refusal = try await shared.take("\(name):\(key)", limit: limit.count, window: limit.window, now: now())
        } catch {
            local.refund(key)
            throw error
        }
        if let refusal {
            local.refund(key)
            throw AuthError.rateLimited(retryAfterSeconds: refusal)
        }
    }

    /// Takes back one event of `key` (an attempt that turned out not to count). If the
    /// shared counters cannot be reached the event stays counted there: the error is on the
    /// side of the account, and the window ends anyway.
    func refund(_ key: String) async {
        local.refund(key)
        try? await shared?.giveBack("\(name):\(key)", now: now())
    }
}
