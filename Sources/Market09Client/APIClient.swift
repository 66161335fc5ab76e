import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to the Market09 API: adds the bearer token, refreshes an expired access token
/// first, and on a 401 refreshes **once** and retries **once**. Concurrent callers that
/// need a refresh share one refresh request (single flight), so two requests failing
/// together never spend the same refresh token twice.
public actor APIClient {
    /// A decoded API response.
    public struct Response: Sendable {
        /// The status code.
        public let status: Int
        public let body: Data
    }

    private let baseURL: URL
    private let session: URLSession
    /// The token store the client reads and updates.
    public nonisolated let store: any TokenStore
    private let now: @Sendable () -> Date
    private var refreshing: Task<StoredTokens, any Error>?

    /// Creates a client for the server at `baseURL` (e.g. `http://127.0.0.1:8080`).
    public init(baseURL: URL, store: any TokenStore, session: URLSession = URLSession(configuration: .ephemeral),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.baseURL = baseURL
        self.store = store
        self.session = session
        self.now = now
    }

    /// Sends an authenticated request, refreshing the session as described above.
    public func send(_ method: String, _ path: String, json: [String: any Sendable]? = nil) async throws -> Response {
        guard var tokens = try await store.load() else { throw Market09Error.unauthorized(code: "missing_token") }
        if case .expired = TokenStatus(tokens, now: now()) {
            tokens = try await refreshed(after: tokens)
        }
        let first = try await perform(method, path, json: json, token: tokens.accessToken)
        guard first.status == 401 else { return try Self.checked(first) }
        let renewed = try await refreshed(after: tokens)
        let second = try await perform(method, path, json: json, token: renewed.accessToken)
        if second.status == 401 { throw Market09Error.unauthorized(code: Self.errorCode(second) ?? "unauthorized") }
        return try Self.checked(second)
    }

    /// Signs in anonymously and stores the new tokens.
    @discardableResult
    public func signInAnonymously() async throws -> StoredTokens {
        let response = try Self.checked(try await perform("POST", "/v1/auth/anonymous", json: nil, token: nil))
        let tokens = try Self.tokens(from: response)
        try await store.save(tokens)
        return tokens
    }

    /// Signs in with email and password and stores the new tokens.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> StoredTokens {
        let response = try Self.checked(try await perform("POST", "/v1/auth/token", json: ["grant_type": "password", "email": email, "password": password], token: nil))
        let tokens = try Self.tokens(from: response)
        try await store.save(tokens)
        return tokens
    }

    /// The tokens after a refresh that started after `stale` was read: joins a refresh in
    /// flight, reuses one that already replaced `stale`, or starts one.
    private func refreshed(after stale: StoredTokens) async throws -> StoredTokens {
        if let refreshing { return try await refreshing.value }
        if let current = try await store.load(), current != stale { return current }
        let task = Task { try await self.refresh(using: stale.refreshToken) }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    private func refresh(using refreshToken: String) async throws -> StoredTokens {
        let response = try await perform("POST", "/v1/auth/token", json: ["grant_type": "refresh_token", "refresh_token": refreshToken], token: nil)
        if response.status == 401 { throw Market09Error.unauthorized(code: Self.errorCode(response) ?? "unauthorized") }
        let tokens = try Self.tokens(from: try Self.checked(response))
        try await store.save(tokens)
        return tokens
    }

    private func perform(_ method: String, _ path: String, json: [String: any Sendable]?, token: String?) async throws -> Response {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.timeoutInterval = 15
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw Market09Error.unexpectedResponse("not HTTP") }
            return Response(status: http.statusCode, body: data)
        } catch let error as Market09Error {
            throw error
        } catch {
            throw Market09Error.network(error.localizedDescription)
        }
    }

    private static func checked(_ response: Response) throws -> Response {
        guard (200..<300).contains(response.status) else {
            let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
            throw Market09Error.server(status: response.status, code: object?["error"] as? String ?? "unknown",
                                       message: object?["message"] as? String ?? "")
        }
        return response
    }

    private static func errorCode(_ response: Response) -> String? {
        ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["error"] as? String
    }

    private static func tokens(from response: Response) throws -> StoredTokens {
        do {
            return try JSONDecoder().decode(StoredTokens.self, from: response.body)
        } catch {
            throw Market09Error.unexpectedResponse("no tokens in the session response")
        }
    }
}
