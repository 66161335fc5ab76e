import Domain
import Foundation
import HTTPServer

/// The app's other edge functions: `/functions/v1/me`, `/functions/v1/influencers`
/// (`search`, `register`) and `/functions/v1/upload`, over the same use cases as `/v1`.
struct FunctionsAccountController: Sendable {
    let profiles: Profiles
    let influencers: Influencers
    let registration: InfluencerRegistration
    let uploads: UploadsController
    let authenticator: Authenticator
    let gate: SupabaseGate

    var routes: [Route] {
        [
            // 200 with the profile, 204 for an anonymous caller (the app's launch check).
            gate.route("GET", "/functions/v1/me") { request, context in
                guard let user = try await profiles.scoped(context.scope).profile(of: try authenticator.principal(for: request)) else { return .empty() }
                return .json(ProfileResponse(user: user, dialect: .functions))
            },
            gate.route("PUT", "/functions/v1/me") { request, context in
                let user = try authenticator.principal(for: request).permanent()
                let body = try SupabaseBody(request)
                try body.refuseNulls(["nickname", "profile_url"])
                let nickname = try body.string("nickname")
                let profileURL = try body.string("profile_url")
                guard nickname != nil || profileURL != nil else {
                    throw APIError(status: 400, code: ErrorCodes.noFieldsToUpdate, message: "nickname or profile_url required")
                }
                return .json(ProfileResponse(user: try await profiles.update(user, nickname: nickname, profileURL: profileURL), dialect: .functions))
            },
            gate.route("GET", "/functions/v1/influencers") { request, context in
                guard request.query["action"] == "search" else { throw FunctionsPostsController.unknownAction }
                return .json(try await search(request, viewer: try authenticator.principal(for: request), scope: context.scope))
            },
            gate.route("POST", "/functions/v1/influencers") { request, context in
                guard request.query["action"] == "register" else { throw FunctionsPostsController.unknownAction }
                let requester = try authenticator.principal(for: request)
                let username = try SupabaseBody(request).required("instagram_username")
                // As the current backend: any name is taken (one Instagram cannot have is
                // failed at once, `invalid_username`), and the answer is `processing` until
                // approved; the outcome is the request's (GET /v1/influencer-requests/mine).
                let submitted = try await registration.submitAsSent(username, by: requester)
                return .json(FunctionsField(name: "status", value: submitted.request.status == .approved ? "approved" : "processing"))
            },
            gate.route("POST", "/functions/v1/upload") { request, context in
                let media = try await uploads.store(request, by: try authenticator.principal(for: request).permanent())
                return .json(FunctionsField(name: "url", value: uploads.url(of: media)))
            }.receiving(uploads.reception(admission: gate.admission { try await uploads.admit($0) })),
        ]
    }

    /// Up to three influencers whose username contains `username` (case-insensitively), a
    /// bare array; an empty query finds none. Our search also matches full names, so it
    /// is asked for more and filtered to usernames.
    private func search(_ request: HTTPRequest, viewer: Principal, scope: RequestScope) async throws -> [InfluencerSummaryResponse] {
        let query = (request.query["username"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return [] }
        guard query.unicodeScalars.count <= 100, !query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.invalidParameter("username", "username must be at most 100 characters without control characters")
        }
        let needle = query.lowercased()
        let found = try await influencers.scoped(scope).search(query, viewer: viewer, page: 1, limit: 20)
        return found.items.filter { $0.summary.username.lowercased().contains(needle) }.prefix(3).map { InfluencerSummaryResponse(summary: $0.summary, dialect: .functions) }
    }
}
