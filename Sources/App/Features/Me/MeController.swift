import Domain
import Foundation
import HTTPServer

/// `/v1/me`: the caller's own account, the posts they liked and the posts they submitted.
struct MeController: Sendable {
    let profiles: Profiles
    let posts: Posts
    let signedIn: AuthenticatedRoutes
    let revocations: SessionRevocations
    let now: @Sendable () -> Date

    var routes: [Route] {
        [
            signedIn.route("GET", "/me") { _, context, principal in
                guard let user = try await profiles.scoped(context.scope).profile(of: principal) else { return .empty(status: 204) }
                return .json(ProfileResponse(user: user))
            },
            signedIn.permanent("PATCH", "/me") { request, context, principal in
                let body = try request.decodeBody(ProfileUpdateRequest.self)
                return .json(ProfileResponse(user: try await profiles.update(principal, nickname: body.nickname, profileURL: body.profileURL)))
            },
            signedIn.route("DELETE", "/me") { _, context, principal in
                try await profiles.delete(principal)
                revocations.insert([principal.sessionID])
                return .empty()
            },
            signedIn.route("GET", "/me/likes") { request, context, viewer in
                let window = try request.pageWindow()
                return .json(PostPageResponse(try await posts.scoped(context.scope).liked(by: viewer, page: window.page, limit: window.limit), window: window, now: now()))
            },
            signedIn.route("GET", "/me/posts") { request, context, viewer in
                let window = try request.pageWindow()
                return .json(PostPageResponse(try await posts.scoped(context.scope).submitted(by: viewer, page: window.page, limit: window.limit), window: window, now: now()))
            },
        ]
    }
}
