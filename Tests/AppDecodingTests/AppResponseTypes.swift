import Foundation

// The 09Market app's response types, field by field as the client contract
// (../shared/reference/09market-client-contract.md) records them: written here from that
// table, not from the server's code, so a server change that breaks the app breaks these.

/// `Page of T`: the app pages while what it loaded is below `total`.
struct AppPage<T: Decodable>: Decodable {
    let data: [T]
    let total: Int
    let page: Int
}

/// `PostResponse`.
struct AppPost: Decodable {
    let id: String
    let productName: String
    let price: Int?
    let category: String
    let displayUrl: String?
    let groupBuyingStart: String
    let groupBuyingEnd: String
    let groupBuyingUrl: String?
    let likesCount: Int
    let postedAt: String
    let influencer: AppInfluencer
    let isLiked: Bool
    /// Top 10 only.
    let rank: Int?
}

/// `InfluencerResponse`: `full_name` and `profile_pic_url` are not optional in the app.
struct AppInfluencer: Decodable {
    let id: String
    let username: String
    let fullName: String
    let profilePicUrl: String
    let externalUrl: String?
}

/// `UserResponse` (`/me`).
struct AppUser: Decodable {
    let id: String
    let nickname: String?
    let profileUrl: String?
    let provider: String
    let createdAt: String
}

/// `UploadResponse`.
struct AppUpload: Decodable {
    let url: String
}

/// The schedule screen's page.
struct AppSchedule: Decodable {
    struct Meta: Decodable {
        let page: Int
        let limit: Int
        let total: Int
    }

    let data: [AppPost]
    let meta: Meta
}

/// `{status}` of an influencer registration.
struct AppRegistration: Decodable {
    let status: String
}

/// `{error, message}`: the app reads `error` of a 409.
struct AppError: Decodable {
    let error: String
    let message: String
}

/// A session as supabase-swift's `Session` requires it (`expires_at` an integer).
struct SupabaseSession: Decodable {
    let accessToken: String
    let tokenType: String
    let expiresIn: Int
    let expiresAt: Int
    let refreshToken: String
    let user: SupabaseUser
}

/// supabase-swift's `User`: `id` a UUID, `updated_at` required, dates ISO 8601.
struct SupabaseUser: Decodable {
    let id: UUID
    let aud: String
    let role: String?
    let email: String?
    let appMetadata: [String: AnyJSON]
    let userMetadata: [String: AnyJSON]
    let identities: [SupabaseIdentity]?
    let createdAt: String
    let updatedAt: String
    let isAnonymous: Bool
}

/// supabase-swift's `UserIdentity`: `id` and `provider` strings, `user_id` a UUID,
/// `identity_id` a UUID when present, dates optional.
struct SupabaseIdentity: Decodable {
    let id: String
    let identityId: UUID?
    let userId: UUID
    let identityData: [String: AnyJSON]?
    let provider: String
    let createdAt: String?
    let lastSignInAt: String?
    let updatedAt: String?
}

/// Any JSON value (the metadata objects).
enum AnyJSON: Decodable {
    case value

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() || (try? container.decode(Bool.self)) != nil || (try? container.decode(Double.self)) != nil
            || (try? container.decode(String.self)) != nil || (try? container.decode([String: AnyJSON].self)) != nil {
            self = .value
        } else {
            _ = try container.decode([AnyJSON].self)
            self = .value
        }
    }
}
