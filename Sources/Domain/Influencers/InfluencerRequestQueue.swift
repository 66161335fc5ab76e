import Foundation

/// What looking up a requested name found.
public enum LookupResult: Sendable, Equatable {
    /// A profile, to be judged by the rules.
    case found(InstagramProfile)
    /// No account has the name.
    case notFound
    /// The lookup itself failed (retried with backoff).
    case failed
}

/// Pending influencer requests as work: claimed for a while by whoever looks them up (the
/// server's own lookup job, or the feed's automation through the ingest API), then settled
/// by what the lookup found. The rules are the server's either way: an automation reports
/// the profile, not the verdict.
public struct InfluencerRequestQueue: Sendable {
    /// Lookups before a request fails with `lookup_error`.
    public static let maximumAttempts = 8

    private let requests: any InfluencerRequestRepository
    private let rules: VerificationRules
    private let now: @Sendable () -> Date

    public init(requests: any InfluencerRequestRepository, rules: VerificationRules, now: @escaping @Sendable () -> Date) {
        self.requests = requests
        self.rules = rules
        self.now = now
    }

    /// The wait before attempt `attempts + 1`: 30 s doubling, at most an hour.
    public static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(3600, 30 * pow(2, Double(max(0, attempts - 1))))
    }

    /// Up to `limit` due requests, leased for `lease` seconds (each claim counts an attempt).
    public func claim(limit: Int, lease: TimeInterval) async throws -> [InfluencerRequest] {
        try await requests.claimDue(limit: limit, lease: lease, now: now())
    }

    /// The request with this id, if any.
    public func request(id: Int) async throws -> InfluencerRequest? {
        try await requests.request(idOrUsername: String(id))
    }

    /// Settles `request` by what its lookup found: approved or failed by the rules, or (a
    /// failed lookup) due again after a backoff until ``maximumAttempts``. Settling a
    /// request already decided changes nothing and answers it as it stands.
    public func settle(_ request: InfluencerRequest, _ result: LookupResult) async throws -> InfluencerRequest {
        guard request.status == .processing else { return request }
        let settled: InfluencerRequest?
        switch result {
        case .failed where request.attempts < Self.maximumAttempts:
            try await requests.retry(id: request.id, at: now().addingTimeInterval(Self.backoff(afterAttempts: request.attempts)))
            settled = request
        case .failed:
            settled = try await requests.fail(id: request.id, reason: .lookupError)
        case .found, .notFound:
            let profile: InstagramProfile? = if case .found(let profile) = result { profile } else { nil }
            switch rules.verdict(profile) {
            case .success(let profile): settled = try await requests.approve(id: request.id, profile: profile)
            case .failure(let reason): settled = try await requests.fail(id: request.id, reason: reason)
            }
        }
        // nil: decided meanwhile (an admin, another worker): answer it as it now stands.
        if let settled { return settled }
        return try await requests.request(idOrUsername: String(request.id)) ?? request
    }
}
