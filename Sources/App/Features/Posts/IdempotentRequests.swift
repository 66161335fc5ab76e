import Domain
import Foundation
import HTTPServer

/// `Idempotency-Key` for requests a client may have to retry (a phone that lost the answer
/// to `POST /v1/posts`): the same key and request within 24 hours get the first answer
/// back (`Idempotent-Replayed: true`) and create nothing new; the same key with another
/// request answers 422 `idempotency_key_reused`, and while the first is still running, 409
/// `idempotency_key_in_use`. Only answers below 500 are kept: after a failure (a thrown
/// error, a 5xx) the key is released and a retry runs again.
struct IdempotentRequests: Sendable {
    let store: any IdempotencyStore
    let now: @Sendable () -> Date

    func run(_ request: HTTPRequest, user: UserID, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard let key = request.headers["Idempotency-Key"] else { return try await body() }
        // Visible ASCII, 1–255 bytes (the shape of a UUID or any client token).
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError(status: 400, code: ErrorCodes.invalidParameter, message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
                           field: "Idempotency-Key")
        }
        let fingerprint = IdempotentRequest(method: request.method, path: request.path, body: request.body)
        switch try await store.claim(user: user, key: key, request: fingerprint, now: now()) {
        case .replay(let answer):
            var response = HTTPResponse(status: answer.status, headers: HTTPHeaders([("Content-Type", HTTPResponse.jsonContentType)]),
                                        body: answer.body)
            response.headers.add("Idempotent-Replayed", "true")
            return response
        case .inProgress:
            var response = HTTPResponse.error(status: 409, code: ErrorCodes.idempotencyKeyInUse,
                                              message: "A request with this Idempotency-Key is still running; retry shortly.")
            response.headers.add("Retry-After", "1")
            return response
        case .mismatch:
            return .error(status: 422, code: ErrorCodes.idempotencyKeyReused,
                          message: "This Idempotency-Key was used for another request; send a new key for a new request.",
                          field: "Idempotency-Key")
        case .claimed:
            let response: HTTPResponse
            do {
                response = try await body()
            } catch {
                try? await store.release(user: user, key: key)
                throw error
            }
            if response.status < 500 {
                try await store.record(user: user, key: key, answer: StoredAnswer(status: response.status, body: response.body))
            } else {
                try? await store.release(user: user, key: key)
            }
            return response
        }
    }
}
