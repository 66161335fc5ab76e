import Codecs
import Domain
import Foundation
import HTTPServer

/// A user as Supabase Auth answers it: `id` a UUID and `updated_at` (the Swift client
/// requires both), `app_metadata` an object (the Python client requires it) with the
/// `provider` and `providers`, `user_metadata` what the provider last said of the user
/// (GoTrue's `name`/`full_name`, `picture`/`avatar_url`, `email`, `sub`…), one entry in
/// `identities` per linked identity, `is_anonymous` never null.
struct SupabaseUser: JSONWritable {
    let user: User

    func write(to json: inout JSONWriter) {
        let created = WireDate.JSON(user.createdAt, koreaOffset: false)
        let updated = user.identities.map(\.updatedAt).max().map { WireDate.JSON(max($0, user.createdAt), koreaOffset: false) } ?? created
        json.object { json in
            json.field("id", user.id.description)
            json.field("aud", "authenticated")
            json.field("role", "authenticated")
            json.field("email", user.email ?? "")
            json.field("phone", "")
            json.field("app_metadata", AppMetadata(user: user))
            json.field("user_metadata", Self.metadata(of: user))
            json.field("identities", user.identities.map { SupabaseIdentity(identity: $0, user: user.id) })
            json.field("created_at", created)
            json.field("updated_at", updated)
            json.field("is_anonymous", user.isAnonymous)
        }
    }

    /// GoTrue's user_metadata: the data of the identity the user last signed in with.
    private static func metadata(of user: User) -> IdentityData {
        let latest = user.identities.max { ($0.lastSignInAt ?? $0.createdAt) < ($1.lastSignInAt ?? $1.createdAt) }
        return IdentityData(identity: latest, user: user.id)
    }

    private struct AppMetadata: JSONWritable {
        let user: User

        func write(to json: inout JSONWriter) {
            var providers: [String] = []
            for identity in user.identities where !providers.contains(identity.provider.rawValue) { providers.append(identity.provider.rawValue) }
            json.object { json in
                if let provider = user.provider ?? user.identities.first?.provider {
                    json.field("provider", provider.rawValue)
                    json.field("providers", providers.isEmpty ? [provider.rawValue] : providers)
                }
                json.field("market09_role", user.role.rawValue)
            }
        }
    }
}

/// One identity as GoTrue lists it (supabase-swift's `UserIdentity`).
struct SupabaseIdentity: JSONWritable {
    let identity: LinkedIdentity
    let user: UserID

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("identity_id", identity.id.lowercasedText)
            json.field("id", identity.provider == .email ? user.description : identity.subject)
            json.field("user_id", user.description)
            json.field("identity_data", IdentityData(identity: identity, user: user))
            json.field("provider", identity.provider.rawValue)
            json.field("last_sign_in_at", identity.lastSignInAt.map { WireDate.JSON($0, koreaOffset: false) })
            json.field("created_at", WireDate.JSON(identity.createdAt, koreaOffset: false))
            json.field("updated_at", WireDate.JSON(identity.updatedAt, koreaOffset: false))
            json.field("email", identity.email ?? "")
        }
    }
}

/// GoTrue's identity_data (and user_metadata): for Google and Apple the token's claims
/// under both of GoTrue's names (`name`/`full_name`, `picture`/`avatar_url`); for an email
/// identity its email. Empty without an identity (anonymous users).
struct IdentityData: JSONWritable {
    let identity: LinkedIdentity?
    let user: UserID

    static let issuers: [IdentityProvider: String] = [.google: "https://accounts.google.com", .apple: "https://appleid.apple.com"]

    func write(to json: inout JSONWriter) {
        json.object { json in
            guard let identity else { return }
            if identity.provider == .email {
                json.field("sub", user.description)
                json.field("email", identity.email ?? identity.subject)
                json.field("email_verified", false)
                json.field("phone_verified", false)
                return
            }
            if let issuer = Self.issuers[identity.provider] { json.field("iss", issuer) }
            json.field("sub", identity.subject)
            json.field("provider_id", identity.subject)
            if let email = identity.email {
                json.field("email", email)
                json.field("email_verified", true)
            }
            json.field("phone_verified", false)
            if let name = identity.profile.name {
                json.field("name", name)
                json.field("full_name", name)
            }
            if let picture = identity.profile.picture {
                json.field("picture", picture)
                json.field("avatar_url", picture)
            }
        }
    }
}

/// `GET /auth/v1/settings`: which sign-ins this server offers.
struct SupabaseAuthSettings: JSONWritable {
    let settings: AuthSettings

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("external", Providers(settings: settings))
            json.field("disable_signup", false)
            json.field("mailer_autoconfirm", true)
            json.field("phone_autoconfirm", false)
            json.field("sms_provider", "")
            json.field("saml_enabled", false)
        }
    }

    private struct Providers: JSONWritable {
        let settings: AuthSettings

        func write(to json: inout JSONWriter) {
            json.object { json in
                json.field("anonymous_users", true)
                json.field("email", true)
                json.field("phone", false)
                json.field("google", !settings.googleClientIDs.isEmpty)
                json.field("apple", !settings.appleClientIDs.isEmpty)
            }
        }
    }
}

/// `{"keys": []}`.
struct JSONKeySet: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in json.field("keys", [String]()) }
    }
}
