import Foundation

/// A signed-in permanent user, as `GET /v1/me` describes it.
public struct User: Decodable, Sendable, Equatable {
    /// The user id.
    public let id: String
    /// Display name.
    public let nickname: String?
    /// Profile picture URL.
    public let profileURL: String?
    /// `email`, `google` or `apple`.
    public let provider: String?
    /// The account's email, when known.
    public let email: String?

    enum CodingKeys: String, CodingKey {
        case id, nickname, provider, email
        case profileURL = "profile_url"
    }
}

/// Where the app stands after its launch check.
public enum AuthState: Sendable, Equatable {
    /// Browsing with an anonymous session.
    case anonymous
    /// Signed in as a permanent user.
    case authenticated(User)
    /// The permanent session ended: show the login screen.
    case unauthenticated
}

/// The app's launch-time check (`CheckAuthOnLaunchUseCase`), branch by branch:
/// no token → anonymous sign-in; a token → `GET /v1/me` (the client refreshes once on
/// 401): 200 → authenticated, 204 → anonymous; still 401 → a new anonymous session if the
/// stored one was anonymous, otherwise clear the tokens and ask for login. Network errors
/// are thrown (retryable) and change nothing.
public struct CheckAuthOnLaunchUseCase: Sendable {
    private let client: APIClient
    private let now: @Sendable () -> Date

    public init(client: APIClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.now = now
    }

    /// Runs the check.
    public func execute() async throws -> AuthState {
        let status = TokenStatus(try await client.store.load(), now: now())
        if status == .noToken {
            try await client.signInAnonymously()
            return .anonymous
        }
        do {
            let response = try await client.send("GET", "/v1/me")
            if response.status == 204 { return .anonymous }
            do {
                return .authenticated(try JSONDecoder().decode(User.self, from: response.body))
            } catch {
                throw Market09Error.unexpectedResponse("GET /v1/me returned no user")
            }
        } catch Market09Error.unauthorized {
            if status.isAnonymous {
                try await client.signInAnonymously()
                return .anonymous
            }
            try await client.store.clear()
            return .unauthenticated
        }
    }
}
