import Domain
import Foundation
import HTTPServer

/// `/auth/v1/*`: the subset of Supabase Auth the 09Market app and Supabase's clients call,
/// over the same ``Authentication`` use cases, rate limits and sessions as `/v1/auth` (a
/// session from either works on both).
struct SupabaseAuthController: Sendable {
    let authentication: Authentication
    let profiles: Profiles
    let authenticator: Authenticator
    let revocations: SessionRevocations
    let settings: AuthSettings
    let limits: AuthRateLimits
    let gate: SupabaseGate

    var routes: [Route] {
        [
            gate.route("POST", "/auth/v1/signup") { request, context in try await signUp(request) },
            gate.route("POST", "/auth/v1/token") { request, context in try await token(request) },
            gate.route("GET", "/auth/v1/user") { request, context in
                .json(SupabaseUser(user: try await profiles.scoped(context.scope).account(of: try authenticator.principal(for: request))))
            },
            gate.route("PUT", "/auth/v1/user") { request, context in try await updateUser(request) },
            gate.route("POST", "/auth/v1/logout") { request, context in
                let principal = try authenticator.principal(for: request)
                guard let scope = LogoutScope(rawValue: request.query["scope"] ?? "global") else {
                    throw APIError.invalidParameter("scope", "scope must be global, local or others")
                }
                try await authentication.logout(principal, scope: scope)
                if scope != .others { revocations.insert([principal.sessionID]) }
                return .empty()
            },
            gate.route("GET", "/auth/v1/settings") { _, context in .json(SupabaseAuthSettings(settings: settings)) },
            gate.route("GET", "/auth/v1/.well-known/jwks.json") { _, context in
                // Access tokens are HS256 (a shared secret): there is no public key to publish.
                .json(JSONKeySet())
            },
        ]
    }

    /// An empty body or `{data}` signs in anonymously; `{email, password}` signs up.
    private func signUp(_ request: HTTPRequest) async throws -> HTTPResponse {
        let client = limits.clientAddress.of(request)
        let body = try SupabaseBody(request)
        try body.refuseNulls(["email", "password"])
        guard let email = try body.string("email") else {
            guard !body.has("password") else { throw APIError.invalidBody("a password signs up with an email", field: "email") }
            try await limits.anonymousSignUps.record(client)
            return session(try await authentication.signInAnonymously())
        }
        try await limits.tokenRequests.record(client)
        let password = try body.string("password") ?? ""
        return session(try await authentication.signUp(email: email, password: password, nickname: body.string("nickname", in: "data")))
    }

    private func token(_ request: HTTPRequest) async throws -> HTTPResponse {
        let client = limits.clientAddress.of(request)
        try await limits.tokenRequests.record(client)
        let body = try SupabaseBody(request)
        switch request.query["grant_type"] {
        case "password":
            return session(try await authentication.signIn(email: try body.required("email"), password: try body.required("password"), client: client))
        case "refresh_token":
            do {
                return session(try await authentication.refresh(refreshToken: try body.required("refresh_token")))
            } catch AuthError.invalidToken, AuthError.sessionRevoked {
                throw APIError(status: 400, code: ErrorCodes.refreshTokenNotFound, message: "Invalid Refresh Token: Refresh Token Not Found")
            }
        case "id_token":
            guard let provider = IdentityProvider(rawValue: try body.required("provider")), provider != .email else {
                throw APIError.invalidBody("provider must be google or apple", field: "provider")
            }
            let idToken = try body.required("id_token")
            let nonce = try body.string("nonce")
            // `link_identity` with an anonymous user's bearer: that user becomes permanent,
            // keeping its id (supabase-js linkIdentity with an ID token).
            if body.flag("link_identity") {
                let principal = try authenticator.principal(for: request)
                let issued = try await authentication.upgrade(principal, with: .idToken(provider: provider, idToken: idToken, nonce: nonce),
                                                              merge: false, client: client)
                revocations.insert([principal.sessionID])
                return session(issued)
            }
            return session(try await authentication.signIn(provider: provider, idToken: idToken, nonce: nonce))
        default:
            throw APIError.invalidParameter("grant_type", "grant_type must be password, refresh_token or id_token")
        }
    }

    /// An anonymous user's email and password, as an auto-confirming project sets them:
    /// the user (same id) is answered and the session goes on.
    private func updateUser(_ request: HTTPRequest) async throws -> HTTPResponse {
        let principal = try authenticator.principal(for: request)
        let client = limits.clientAddress.of(request)
        try await limits.tokenRequests.record(client)
        let body = try SupabaseBody(request)
        guard let email = try body.string("email"), let password = try body.string("password") else {
            throw APIError.invalidBody("send email and password to make an anonymous user permanent")
        }
        let user = try await authentication.upgradeKeepingSession(principal, with: .email(email: email, password: password), client: client)
        return .json(SupabaseUser(user: user))
    }

    private func session(_ issued: IssuedSession) -> HTTPResponse {
        let (token, expiresAt) = authenticator.accessToken(for: issued, lifetime: settings.accessTokenLifetime)
        return .json(SessionResponse(accessToken: token, expiresIn: settings.accessTokenLifetime, expiresAt: expiresAt,
                                     refreshToken: issued.refreshToken, user: SupabaseUser(user: issued.user)))
    }
}
