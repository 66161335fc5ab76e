import Domain
import Foundation
import HTTPServer

/// `/v1/auth/*`: anonymous sessions, sign-up, the token endpoint (password, refresh token,
/// ID token), upgrade of an anonymous account, logout.
struct AuthController: Sendable {
    let authentication: Authentication
    let signedIn: AuthenticatedRoutes
    let revocations: SessionRevocations
    let settings: AuthSettings
    let limits: AuthRateLimits

    var routes: [Route] {
        [
            signedIn.endpoints.route("POST", "/auth/anonymous") { request, _ in
                try await limits.anonymousSignUps.record(limits.clientAddress.of(request))
                return session(try await authentication.signInAnonymously(), status: 201)
            },
            signedIn.endpoints.route("POST", "/auth/signup") { request, _ in
                try await limits.tokenRequests.record(limits.clientAddress.of(request))
                let body = try request.decodeBody(SignUpRequest.self)
                return session(try await authentication.signUp(email: body.email, password: body.password, nickname: body.nickname), status: 201)
            },
            signedIn.endpoints.route("POST", "/auth/token") { request, _ in try await token(request) },
            signedIn.route("POST", "/auth/upgrade") { request, context, principal in try await upgrade(request, principal) },
            signedIn.route("POST", "/auth/logout") { request, context, principal in
                let scopeText = request.body.isEmpty ? nil : try request.decodeBody(LogoutRequest.self).scope
                guard let scope = LogoutScope(rawValue: scopeText ?? "local") else {
                    throw APIError.invalidBody("scope must be local, global or others", field: "scope")
                }
                try await authentication.logout(principal, scope: scope)
                if scope != .others { revocations.insert([principal.sessionID]) }
                return .empty()
            },
        ]
    }

    private func token(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await limits.tokenRequests.record(limits.clientAddress.of(request))
        let body = try request.decodeBody(TokenRequest.self)
        switch body.grantType {
        case "password":
            let email = try required(body.email, "email")
            return session(try await authentication.signIn(email: email, password: try required(body.password, "password"), client: limits.clientAddress.of(request)))
        case "refresh_token":
            return session(try await authentication.refresh(refreshToken: try required(body.refreshToken, "refresh_token")))
        case "id_token":
            let provider = try provider(body.provider, allowing: [.google, .apple])
            return session(try await authentication.signIn(provider: provider, idToken: try required(body.idToken, "id_token"), nonce: body.nonce))
        default:
            throw APIError.invalidBody("grant_type must be password, refresh_token or id_token", field: "grant_type")
        }
    }

    private func upgrade(_ request: HTTPRequest, _ principal: Principal) async throws -> HTTPResponse {
        let client = limits.clientAddress.of(request)
        try await limits.tokenRequests.record(client)
        let body = try request.decodeBody(UpgradeRequest.self)
        let credential: UpgradeCredential
        switch try provider(body.provider, allowing: IdentityProvider.allCases) {
        case .email:
            credential = .email(email: try required(body.email, "email"), password: try required(body.password, "password"))
        case let provider:
            credential = .idToken(provider: provider, idToken: try required(body.idToken, "id_token"), nonce: body.nonce)
        }
        let issued = try await authentication.upgrade(principal, with: credential, merge: body.merge ?? false, client: client)
        revocations.insert([principal.sessionID])
        return session(issued)
    }

    private func session(_ issued: IssuedSession, status: Int = 200) -> HTTPResponse {
        let (token, expiresAt) = signedIn.authenticator.accessToken(for: issued, lifetime: settings.accessTokenLifetime)
        return .json(SessionResponse(accessToken: token, expiresIn: settings.accessTokenLifetime, expiresAt: expiresAt,
                                         refreshToken: issued.refreshToken, user: UserResponse(user: issued.user)), status: status)
    }
}

