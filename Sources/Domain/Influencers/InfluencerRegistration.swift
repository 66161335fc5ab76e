import Foundation

/// Storage of influencer requests.
public protocol InfluencerRequestRepository: Sendable {
    /// Records a request for `username` unless one exists (returned with `created: false`);
    /// a request that failed (not one an admin rejected) at least `retryAfter` seconds ago
    /// is opened again for `user` instead (`created: true`). ``DomainError/conflict(_:)``
    /// (`influencer`) when the influencer exists already; ``DomainError/limitReached(_:message:)``
    /// when `user` has `openLimit` requests processing. One request per username however
    /// many arrive at once.
    func submit(username: String, by user: UserID, openLimit: Int, retryAfter: TimeInterval) async throws -> (request: InfluencerRequest, created: Bool)
    /// The user's requests, newest first.
    func requests(of user: UserID, offset: Int, limit: Int) async throws -> Page<InfluencerRequest>
    /// Requests, newest first, optionally of one status (admins).
    func requests(status: InfluencerRequest.Status?, offset: Int, limit: Int) async throws -> Page<InfluencerRequest>
    /// The request with this id or username, or `nil`.
    func request(idOrUsername: String) async throws -> InfluencerRequest?
    /// Leases up to `limit` processing requests due at `now` for `lease` seconds (each
    /// counted as an attempt): a leased request is claimed by no other instance.
    func claimDue(limit: Int, lease: TimeInterval, now: Date) async throws -> [InfluencerRequest]
    /// Approves a request that is processing or failed: the influencer is created from
    /// `profile` (or the one of that username kept); `nil` when it is approved already.
    func approve(id: Int, profile: InstagramProfile) async throws -> InfluencerRequest?
    /// Opens a failed (or processing) request again for a fresh check, its attempts
    /// counted from zero (admins); `nil` when it is approved already.
    func reopen(id: Int) async throws -> InfluencerRequest?
    /// Fails a processing request with `reason`; `nil` when it is not processing.
    func fail(id: Int, reason: InfluencerRequest.Failure) async throws -> InfluencerRequest?
    /// Puts a leased request back, due at `at`.
    func retry(id: Int, at: Date) async throws
    /// Records a request for a name no Instagram account can have, failed at once with
    /// ``InfluencerRequest/Failure/invalidUsername`` (the earlier request for the name
    /// when there is one).
    func recordInvalid(username: String, by user: UserID) async throws -> InfluencerRequest
}

/// Use cases of the app's "register an influencer": submit and follow one's requests.
public struct InfluencerRegistration: Sendable {
    /// Requests one account may have processing at once: each costs a lookup of an outside
    /// service, and anonymous accounts may request too.
    public static let openLimit = 10
    /// How long a failed request stands before anyone may request the name again: an
    /// anonymous account that requested a name early (and failed it) once blocked it for good.
    public static let defaultRetryAfter: TimeInterval = 86_400

    private let requests: any InfluencerRequestRepository
    private let retryAfter: TimeInterval

    public init(requests: any InfluencerRequestRepository, retryAfter: TimeInterval = InfluencerRegistration.defaultRetryAfter) {
        self.requests = requests
        self.retryAfter = retryAfter
    }

    /// Submits `rawUsername` (normalised); `created` is false when it was requested before
    /// and that request still stands.
    public func submit(_ rawUsername: String, by requester: Principal) async throws -> (request: InfluencerRequest, created: Bool) {
        try await requests.submit(username: try InstagramUsername.normalized(rawUsername), by: requester.userID, openLimit: Self.openLimit,
                                  retryAfter: retryAfter)
    }

    /// Submits a name as the app's current backend takes any registration: a name no
    /// Instagram account can have is not refused but recorded as a request that failed
    /// (`invalid_username`), as that backend fails it in the background.
    public func submitAsSent(_ rawUsername: String, by requester: Principal) async throws -> (request: InfluencerRequest, created: Bool) {
        let text = try InstagramUsername.asSent(rawUsername)
        if let username = try? InstagramUsername.normalized(text) {
            return try await requests.submit(username: username, by: requester.userID, openLimit: Self.openLimit, retryAfter: retryAfter)
        }
        return (try await requests.recordInvalid(username: text, by: requester.userID), false)
    }

    /// The caller's requests.
    public func mine(_ requester: Principal, page: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        try await requests.requests(of: requester.userID, offset: (page - 1) * limit, limit: limit)
    }
}

/// The background check of requests: each due request's profile is looked up and judged
/// by the rules; lookup errors are retried with backoff, up to ``InfluencerRequestQueue/maximumAttempts``.
public struct InfluencerVerification: Sendable {
    /// Lookups before a request fails with `lookup_error`.
    public static let maximumAttempts = InfluencerRequestQueue.maximumAttempts
    /// How long a claimed request is leased to the instance checking it.
    public static let lease: TimeInterval = 120

    private let queue: InfluencerRequestQueue
    private let lookup: any ProfileLookup

    public init(requests: any InfluencerRequestRepository, lookup: any ProfileLookup, rules: VerificationRules,
                now: @escaping @Sendable () -> Date) {
        self.queue = InfluencerRequestQueue(requests: requests, rules: rules, now: now)
        self.lookup = lookup
    }

    /// The wait before attempt `attempts + 1`.
    public static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        InfluencerRequestQueue.backoff(afterAttempts: attempts)
    }

    /// Checks up to `batch` due requests; how many were decided.
    @discardableResult
    public func runOnce(batch: Int = 5) async throws -> Int {
        var decided = 0
        for request in try await queue.claim(limit: batch, lease: Self.lease) {
            let found: LookupResult
            do {
                found = try await lookup.profile(username: request.username).map(LookupResult.found) ?? .notFound
            } catch {
                found = .failed
            }
            if try await queue.settle(request, found).status != .processing { decided += 1 }
        }
        return decided
    }
}
