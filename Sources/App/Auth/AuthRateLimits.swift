import Domain
import Foundation
import HTTPServer

/// The rate limiters of the auth endpoints, shared by every request of an instance and,
/// through `counters`, by every instance: these are the limits that protect accounts
/// (password guessing per email and per address, sign-ups and token calls per address).
public struct AuthRateLimits: Sendable {
    /// Anonymous sign-ups per client address.
    let anonymousSignUps: SharedRateLimiter
    /// Token, sign-up and upgrade calls per client address.
    let tokenRequests: SharedRateLimiter
    /// The budgets every password check draws from (per email and per address).
    public let passwordAttempts: PasswordAttemptBudgets
    /// How a request's client address is found.
    let clientAddress: ClientAddress

    /// Creates the limiters from `settings`; `counters` (shared by the instances) or, when
    /// `nil`, this instance's memory alone.
    public init(settings: AuthSettings, counters: (any RateLimitCounters)?, now: @escaping @Sendable () -> Date) {
        anonymousSignUps = SharedRateLimiter(name: "anon-addr", settings.anonymousSignUps, shared: counters, now: now)
        tokenRequests = SharedRateLimiter(name: "token-addr", settings.tokenRequests, shared: counters, now: now)
        passwordAttempts = PasswordAttemptBudgets(
            perEmail: SharedRateLimiter(name: "pw-email", settings.failedPasswordSignIns, shared: counters, now: now),
            perClient: SharedRateLimiter(name: "pw-addr", settings.failedPasswordsPerAddress, shared: counters, now: now))
        clientAddress = ClientAddress(trustedProxies: settings.trustedProxies)
    }
}

/// Failed-password budgets: a check takes one event from the email's limiter and one from
/// the client's, and gives both back when it did not fail.
public struct PasswordAttemptBudgets: PasswordAttemptLimiter {
    let perEmail: SharedRateLimiter
    let perClient: SharedRateLimiter

    public func reserve(email: String, client: String) async throws {
        try await perEmail.record(email)
        do {
            try await perClient.record(client)
        } catch {
            await perEmail.refund(email)
            throw error
        }
    }

    public func release(email: String, client: String) async {
        await perEmail.refund(email)
        await perClient.refund(client)
    }
}
