import Domain
import Foundation
import HTTPServer

/// `/v1/influencer-requests`: the app's "register an influencer" (any signed-in account,
/// anonymous included, as in the app).
struct InfluencerRequestsController: Sendable {
    let registration: InfluencerRegistration
    let signedIn: AuthenticatedRoutes

    var routes: [Route] {
        [
            signedIn.route("POST", "/influencer-requests") { request, context, principal in
                let body = try request.decodeBody(InfluencerRequestBody.self)
                let (submitted, created) = try await registration.submit(body.instagramUsername, by: principal)
                // 202: accepted for a check that runs later; 200: the earlier request as it stands.
                return .json(InfluencerRequestResponse(request: submitted), status: created ? 202 : 200)
            },
            signedIn.route("GET", "/influencer-requests/mine") { request, context, principal in
                let window = try request.pageWindow()
                let found = try await registration.mine(principal, page: window.page, limit: window.limit)
                return .json(PageResponse(data: found.items.map(InfluencerRequestResponse.init), total: found.total, page: window.page,
                                          limit: window.limit, hasNext: window.hasNext(total: found.total)))
            },
        ]
    }
}

/// The body of `POST /v1/influencer-requests`.
struct InfluencerRequestBody: JSONRequestBody {
    let instagramUsername: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case instagramUsername = "instagram_username"
    }
}

/// `{id, username, status, reason, influencer_id, created_at}`.
struct InfluencerRequestResponse: JSONWritable {
    let request: InfluencerRequest

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", request.id)
            json.field("username", request.username)
            json.field("status", request.status.rawValue)
            json.field("reason", request.reason?.rawValue)
            json.field("influencer_id", request.influencerID?.rawValue)
            json.field("created_at", WireDate.JSON(request.createdAt, koreaOffset: false))
        }
    }
}
