import Domain
import Foundation

/// The session a sign-in, sign-up, refresh or upgrade answers with.
struct SessionResponse: Encodable {
    let accessToken: String
    let tokenType = "bearer"
    let expiresIn: Int
    let expiresAt: Int
    let refreshToken: String
    let user: UserResponse

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case expiresAt = "expires_at", refreshToken = "refresh_token", user
    }
}

/// A user inside a session response; absent values are explicit `null`s.
struct UserResponse: Encodable {
    let user: User

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(user.id.description, forKey: .id)
        try container.encode(user.isAnonymous, forKey: .isAnonymous)
        try container.encode(user.role.rawValue, forKey: .role)
        try container.encode(user.nickname, forKey: .nickname)
        try container.encode(user.email, forKey: .email)
        try container.encode(user.provider?.rawValue, forKey: .provider)
        try container.encode(user.createdAt, forKey: .createdAt)
    }

    private enum Keys: String, CodingKey {
        case id, role, nickname, email, provider
        case isAnonymous = "is_anonymous", createdAt = "created_at"
    }
}

/// `GET /v1/me` for a permanent user.
struct ProfileResponse: Encodable {
    let user: User

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(user.id.description, forKey: .id)
        try container.encode(user.nickname, forKey: .nickname)
        try container.encode(user.profileURL, forKey: .profileURL)
        try container.encode(user.provider?.rawValue, forKey: .provider)
        try container.encode(user.email, forKey: .email)
        try container.encode(user.createdAt, forKey: .createdAt)
    }

    private enum Keys: String, CodingKey {
        case id, nickname, provider, email
        case profileURL = "profile_url", createdAt = "created_at"
    }
}

struct SignUpRequest: Decodable {
    let email: String
    let password: String
    let nickname: String?
}

struct TokenRequest: Decodable {
    let grantType: String
    let email: String?
    let password: String?
    let refreshToken: String?
    let provider: String?
    let idToken: String?
    let nonce: String?

    enum CodingKeys: String, CodingKey {
        case email, password, provider, nonce
        case grantType = "grant_type", refreshToken = "refresh_token", idToken = "id_token"
    }
}

struct UpgradeRequest: Decodable {
    let provider: String
    let email: String?
    let password: String?
    let idToken: String?
    let nonce: String?
    let merge: Bool?

    enum CodingKeys: String, CodingKey {
        case provider, email, password, nonce, merge
        case idToken = "id_token"
    }
}

struct LogoutRequest: Decodable {
    let scope: String?
}

struct ProfileUpdateRequest: Decodable {
    let nickname: String?
    let profileURL: String?

    enum CodingKeys: String, CodingKey {
        case nickname
        case profileURL = "profile_url"
    }
}

/// A required string field of a body, or 400 naming it.
func required(_ value: String?, _ field: String) throws -> String {
    guard let value, !value.isEmpty else { throw APIError.invalidBody("\(field) is required", field: field) }
    return value
}

/// A provider named in a body, or 400 naming the field.
func provider(_ text: String?, allowing allowed: [IdentityProvider]) throws -> IdentityProvider {
    guard let text, let provider = IdentityProvider(rawValue: text), allowed.contains(provider) else {
        throw APIError.invalidBody("provider must be one of \(allowed.map(\.rawValue).joined(separator: ", "))", field: "provider")
    }
    return provider
}
