import Domain
import Foundation
import HTTPServer

/// Turns a request's service API key into the ``ServiceKey`` it names, for one scope.
///
/// The key arrives as `Authorization: Bearer <key>` or as `apikey: <key>` (what an n8n
/// HTTP Request node's header credential sends). A user's access token is refused here by
/// its shape, and a service key is refused by ``Authenticator`` (it is not a JWT): neither
/// opens the other's routes. Every use is looked up, so a revoked key stops at once.
struct ServiceKeyAuthenticator: Sendable {
    let keys: any ServiceKeyRepository
    let scope: ServiceScope
    let now: @Sendable () -> Date

    /// The live key of the request; 401 `invalid_api_key` for anything else. `counting`:
    /// the call is counted against the key (its handler's check, not its head's).
    func key(for request: HTTPRequest, counting: Bool = false) async throws -> ServiceKey {
        let prefix = ServiceKeyText.prefix(scope)
        guard let text = Self.presented(request) else {
            throw Self.refusal("Send the service API key as Authorization: Bearer \(prefix)… or apikey: \(prefix)…")
        }
        guard ServiceKeyText.looksLike(text, scope: scope) else {
            throw Self.refusal("This route takes a service API key of scope \(scope.rawValue) (\(prefix)…), not a user's token; "
                               + "make one with market09 admin api-keys create --name NAME --scope \(scope.rawValue)")
        }
        guard let key = try await keys.use(text: text, at: now(), counting: counting), key.scope == scope else {
            throw Self.refusal("The service API key is unknown or revoked.")
        }
        return key
    }

    private static func refusal(_ message: String) -> APIError {
        APIError(status: 401, code: ErrorCodes.invalidAPIKey, message: message)
    }

    /// The presented text: the bearer token, else the `apikey` header; trimmed.
    private static func presented(_ request: HTTPRequest) -> String? {
        if let header = request.headers["Authorization"] {
            let bytes = Array(header.utf8)
            let scheme = Array("bearer ".utf8)
            guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { return "" }
            return String(decoding: bytes[scheme.count...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        return request.headers["apikey"]?.trimmingCharacters(in: .whitespaces)
    }
}
