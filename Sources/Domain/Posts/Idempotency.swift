import Foundation

/// What an `Idempotency-Key` remembers of a request: enough to tell the same request
/// from another one.
public struct IdempotentRequest: Sendable, Equatable {
    public let method: String
    public let path: String
    public let body: Data

    public init(method: String, path: String, body: Data) {
        self.method = method
        self.path = path
        self.body = body
    }
}

/// The answer a key's first request got.
public struct StoredAnswer: Sendable, Equatable {
    public let status: Int
    public let body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// What claiming a key found.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key was free: run the request, then record its answer (or release the key).
    case claimed
    /// The same request was answered under this key: send that answer again.
    case replay(StoredAnswer)
    /// The same key's first request is still running.
    case inProgress
    /// The key was used for another request.
    case mismatch
}

/// Keys of requests a client may retry safely (`Idempotency-Key`), per user, for 24 hours.
public protocol IdempotencyStore: Sendable {
    func claim(user: UserID, key: String, request: IdempotentRequest, now: Date) async throws -> IdempotencyClaim
    func record(user: UserID, key: String, answer: StoredAnswer) async throws
    /// Forgets an unfinished claim, so a retry runs the request again.
    func release(user: UserID, key: String) async throws
}
