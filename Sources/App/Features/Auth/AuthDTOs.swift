import Domain
import Foundation
import HTTPServer

/// The session a sign-in, sign-up, refresh or upgrade answers with.
struct SessionResponse<UserBody: JSONWritable>: JSONWritable {
    let accessToken: String
    let expiresIn: Int
    let expiresAt: Int
    let refreshToken: String
    let user: UserBody

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("access_token", accessToken)
            json.field("token_type", "bearer")
            json.field("expires_in", expiresIn)
            json.field("expires_at", expiresAt)
            json.field("refresh_token", refreshToken)
            json.field("user", user)
        }
    }
}

/// A user inside a session response; absent values are explicit `null`s.
struct UserResponse: JSONWritable {
    let user: User

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", user.id.description)
            json.field("is_anonymous", user.isAnonymous)
            json.field("role", user.role.rawValue)
            json.field("nickname", user.nickname)
            json.field("email", user.email)
            json.field("provider", user.provider?.rawValue)
            json.field("created_at", WireDate.JSON(user.createdAt, koreaOffset: false))
        }
    }
}

/// `GET /v1/me` for a permanent user; in the functions' dialect `/functions/v1/me`
/// (`UserResponse` in the app: `provider` never null, no `email`).
struct ProfileResponse: JSONWritable {
    let user: User
    var dialect = WireDialect.v1

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", user.id.description)
            json.field("nickname", user.nickname)
            json.field("profile_url", user.profileURL)
            if dialect == .v1 {
                json.field("provider", user.provider?.rawValue)
                json.field("email", user.email)
            } else {
                json.field("provider", user.provider?.rawValue ?? "email")
            }
            json.field("created_at", WireDate.JSON(user.createdAt, koreaOffset: false))
        }
    }
}

struct SignUpRequest: JSONRequestBody {
    let email: String
    let password: String
    let nickname: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case email, password, nickname
    }
}

struct TokenRequest: JSONRequestBody {
    let grantType: String
    let email: String?
    let password: String?
    let refreshToken: String?
    let provider: String?
    let idToken: String?
    let nonce: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case email, password, provider, nonce
        case grantType = "grant_type", refreshToken = "refresh_token", idToken = "id_token"
    }
}

struct UpgradeRequest: JSONRequestBody {
    let provider: String
    let email: String?
    let password: String?
    let idToken: String?
    let nonce: String?
    let merge: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case provider, email, password, nonce, merge
        case idToken = "id_token"
    }
}

struct LogoutRequest: JSONRequestBody {
    let scope: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case scope
    }
}

struct ProfileUpdateRequest: JSONRequestBody {
    let nickname: String?
    let profileURL: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
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
