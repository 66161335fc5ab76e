import Domain

/// `/v1/me`: the caller's own account.
struct MeController: Sendable {
    let profiles: Profiles
    let authenticator: Authenticator
    let revocations: SessionRevocations

    var routes: [Route] {
        let authenticated = AuthenticatedRoutes(authenticator: authenticator)
        return [
            authenticated.route("GET", "/me") { _, principal in
                guard let user = try await profiles.profile(of: principal) else { return .empty(status: 204) }
                return .json(ProfileResponse(user: user))
            },
            authenticated.permanent("PATCH", "/me") { request, principal in
                let body = try request.decodeBody(ProfileUpdateRequest.self)
                return .json(ProfileResponse(user: try await profiles.update(principal, nickname: body.nickname, profileURL: body.profileURL)))
            },
            authenticated.route("DELETE", "/me") { _, principal in
                try await profiles.delete(principal)
                revocations.insert([principal.sessionID])
                return .empty()
            },
        ]
    }
}
