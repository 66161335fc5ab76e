import Foundation

/// The budgets password checks draw from: one per email (protecting the account, whoever
/// guesses) and one per client address (slowing one guesser across many accounts).
///
/// A check is *reserved* before the KDF runs and given back only when it did not fail, so
/// guesses sent at the same moment cannot all pass the budget before the first failure is
/// counted. ``Authentication`` reserves on every path that checks a password, so a new
/// route cannot forget it.
public protocol PasswordAttemptLimiter: Sendable {
    /// Reserves one check of `email`'s password by `client`; throws
    /// ``AuthError/rateLimited(retryAfterSeconds:)`` (reserving nothing) when either
    /// budget is spent. The reservation counts as a failure until ``release(email:client:)``.
    func reserve(email: String, client: String) async throws
    /// Gives back a reservation whose check did not fail (right password, or no check ran).
    /// A give-back that cannot be stored leaves the check counted: it errs towards the account.
    func release(email: String, client: String) async
}
