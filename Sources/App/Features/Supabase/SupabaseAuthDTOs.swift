import Domain
import Foundation

/// A user as Supabase Auth answers it: `id` a UUID and `updated_at` (the Swift client
/// requires both), `app_metadata` an object (the Python client requires it),
/// `is_anonymous` never null. We keep no identity rows' own ids or update times, so
/// `identities` is empty and `updated_at` is the creation time.
struct SupabaseUser: JSONWritable {
    let user: User

    func write(to json: inout JSONWriter) {
        let created = WireDate.JSON(user.createdAt, koreaOffset: false)
        json.object { json in
            json.field("id", user.id.description)
            json.field("aud", "authenticated")
            json.field("role", "authenticated")
            json.field("email", user.email ?? "")
            json.field("phone", "")
            json.field("app_metadata", AppMetadata(provider: user.provider, role: user.role))
            json.field("user_metadata", UserMetadata(nickname: user.nickname, profileURL: user.profileURL))
            json.field("identities", [String]())
            json.field("created_at", created)
            json.field("updated_at", created)
            json.field("is_anonymous", user.isAnonymous)
        }
    }

    private struct AppMetadata: JSONWritable {
        let provider: IdentityProvider?
        let role: Role

        func write(to json: inout JSONWriter) {
            json.object { json in
                if let provider {
                    json.field("provider", provider.rawValue)
                    json.field("providers", [provider.rawValue])
                }
                json.field("market09_role", role.rawValue)
            }
        }
    }

    private struct UserMetadata: JSONWritable {
        let nickname: String?
        let profileURL: String?

        func write(to json: inout JSONWriter) {
            json.object { json in
                if let nickname { json.field("nickname", nickname) }
                if let profileURL { json.field("profile_url", profileURL) }
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
