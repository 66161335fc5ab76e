/// Errors the domain reports to its callers; the HTTP layer maps each case to one status
/// and one stable error code in a single place.
public enum DomainError: Error, Sendable, Equatable {
    /// A requested entity does not exist. The payload names the kind, e.g. `post`.
    case notFound(String)
    /// The input breaks a rule; `field` names the offending input when there is one.
    case invalid(field: String?, message: String)
    /// The write would duplicate an existing entity. The payload names the kind.
    case conflict(String)
    /// The caller has as many of this kind as one account may have (409 `<kind>_limit`);
    /// the message says what to do.
    case limitReached(String, message: String)
    /// The caller may not do this to this entity (403 `forbidden`).
    case forbidden(String)
    /// A dependency the use case needs is not able to answer right now.
    case unavailable(String)
    /// Too much of this kind of work is in progress; retry after the given seconds (503
    /// `busy`, answered at once instead of queueing).
    case overloaded(retryAfterSeconds: Int)
    /// The instance has just started and is still building what this request reads (503
    /// `starting` with `Retry-After`); the message says what.
    case starting(String)
}
