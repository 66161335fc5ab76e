import Domain
import Foundation

/// The rate limiters of the auth endpoints, shared by every request of an instance.
public struct AuthRateLimits: Sendable {
    /// Anonymous sign-ups per client address.
    let anonymousSignUps: RateLimiter
    /// Token, sign-up and upgrade calls per client address.
    let tokenRequests: RateLimiter
    /// The budgets every password check draws from (per email and per address).
    public let passwordAttempts: PasswordAttemptBudgets
    /// How a request's client address is found.
    let clientAddress: ClientAddress

    /// Creates the limiters from `settings`.
    public init(settings: AuthSettings, now: @escaping @Sendable () -> Date) {
        anonymousSignUps = RateLimiter(settings.anonymousSignUps, now: now)
        tokenRequests = RateLimiter(settings.tokenRequests, now: now)
        passwordAttempts = PasswordAttemptBudgets(
            perEmail: RateLimiter(settings.failedPasswordSignIns, now: now),
            perClient: RateLimiter(settings.failedPasswordsPerAddress, now: now))
        clientAddress = ClientAddress(trustedProxies: settings.trustedProxies)
    }
}

/// Failed-password budgets in this instance's memory: a check takes one event from the
/// email's limiter and one from the client's, and gives both back when it did not fail.
public struct PasswordAttemptBudgets: PasswordAttemptLimiter {
    let perEmail: RateLimiter
    let perClient: RateLimiter

    public func reserve(email: String, client: String) throws {
        try perEmail.record(email)
        do {
            try perClient.record(client)
        } catch {
            perEmail.refund(email)
            throw error
        }
    }

    public func release(email: String, client: String) {
        perEmail.refund(email)
        perClient.refund(client)
    }
}
