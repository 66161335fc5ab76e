import Domain
import Foundation
import Synchronization

/// Influencer requests in memory, keeping the rules the table keeps: one request per
/// username, a user's open requests capped, a failed one reopened after `retryAfter`, an
/// existing influencer's name refused.
public final class InMemoryInfluencerRequests: InfluencerRequestRepository {
    private struct Stored: Sendable {
        var request: InfluencerRequest
        var requester: UserID
        var updatedAt: Date
    }

    private let catalog: InMemoryCatalog
    private let now: @Sendable () -> Date
    private let requests = Mutex<[Stored]>([])

    /// Requests over `catalog`'s influencers, timed by `now`.
    public init(catalog: InMemoryCatalog, now: @escaping @Sendable () -> Date) {
        self.catalog = catalog
        self.now = now
    }

    public func submit(username: String, by user: UserID, openLimit: Int, retryAfter: TimeInterval) async throws -> (request: InfluencerRequest, created: Bool) {
        let exists = catalog.state.withLock { $0.influencers.values.contains { $0.username == username } }
        guard !exists else { throw DomainError.conflict("influencer") }
        let now = now()
        return try requests.withLock { requests in
            if let index = requests.firstIndex(where: { $0.request.username == username }) {
                let stored = requests[index]
                let reopenable = stored.request.status == .failed && stored.request.reason != .rejected
                    && now.timeIntervalSince(stored.updatedAt) >= retryAfter
                guard reopenable else { return (stored.request, false) }
                requests[index].request = Self.request(stored.request.id, username, stored.request.createdAt)
                requests[index].requester = user
                requests[index].updatedAt = now
                return (requests[index].request, true)
            }
            let open = requests.filter { $0.requester == user && $0.request.status == .processing }.count
            guard open < openLimit else { throw DomainError.limitReached("influencer_request", message: "At most \(openLimit) requests at once.") }
            let request = Self.request(requests.count + 1, username, now)
            requests.append(Stored(request: request, requester: user, updatedAt: now))
            return (request, true)
        }
    }

    private static func request(_ id: Int, _ username: String, _ at: Date, status: InfluencerRequest.Status = .processing,
                                reason: InfluencerRequest.Failure? = nil) -> InfluencerRequest {
        InfluencerRequest(id: id, username: username, status: status, reason: reason, influencerID: nil, attempts: 0, createdAt: at)
    }

    public func requests(of user: UserID, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        requests.withLock { $0.filter { $0.requester == user }.reversed().map(\.request).paged(offset: offset, limit: limit) }
    }

    public func requests(status: InfluencerRequest.Status?, offset: Int, limit: Int) async throws -> Page<InfluencerRequest> {
        requests.withLock { $0.filter { status == nil || $0.request.status == status }.reversed().map(\.request).paged(offset: offset, limit: limit) }
    }

    public func request(idOrUsername: String) async throws -> InfluencerRequest? {
        requests.withLock { $0.first { String($0.request.id) == idOrUsername || $0.request.username == idOrUsername }?.request }
    }

    public func claimDue(limit: Int, lease: TimeInterval, now: Date) async throws -> [InfluencerRequest] { throw UnexpectedCall("claimDue") }
    public func approve(id: Int, profile: InstagramProfile) async throws -> InfluencerRequest? { throw UnexpectedCall("approve") }
    public func reopen(id: Int) async throws -> InfluencerRequest? { throw UnexpectedCall("reopen") }
    public func retry(id: Int, at: Date) async throws { throw UnexpectedCall("retry") }

    public func fail(id: Int, reason: InfluencerRequest.Failure) async throws -> InfluencerRequest? {
        let now = now()
        return requests.withLock { requests in
            guard let index = requests.firstIndex(where: { $0.request.id == id && $0.request.status == .processing }) else { return nil }
            let request = requests[index].request
            requests[index].request = Self.request(id, request.username, request.createdAt, status: .failed, reason: reason)
            requests[index].updatedAt = now
            return requests[index].request
        }
    }

    public func recordInvalid(username: String, by user: UserID) async throws -> InfluencerRequest {
        let now = now()
        return requests.withLock { requests in
            if let earlier = requests.first(where: { $0.request.username == username }) { return earlier.request }
            let request = Self.request(requests.count + 1, username, now, status: .failed, reason: .invalidUsername)
            requests.append(Stored(request: request, requester: user, updatedAt: now))
            return request
        }
    }
}
