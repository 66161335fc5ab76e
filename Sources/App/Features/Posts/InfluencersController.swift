import Domain
import Foundation
import HTTPServer

/// `/v1/influencers`: search, profiles and their posts.
struct InfluencersController: Sendable {
    let influencers: Influencers
    let signedIn: AuthenticatedRoutes
    let categories: CategoryResolver
    let now: @Sendable () -> Date

    var routes: [Route] {
        [
            signedIn.route("GET", "/influencers") { request, context, viewer in
                let window = try request.pageWindow()
                let found = try await influencers.scoped(context.scope).search(try request.searchTerm(), viewer: viewer, page: window.page, limit: window.limit)
                return .json(InfluencerPageResponse(found, window: window, item: InfluencerResponse.init))
            },
            signedIn.route("GET", "/influencers/{id}") { request, context, viewer in
                .json(InfluencerResponse(try await influencers.scoped(context.scope).profile(InfluencerID(rawValue: try request.pathID()), viewer: viewer)))
            },
            signedIn.route("GET", "/influencers/{id}/posts") { request, context, viewer in
                let id = InfluencerID(rawValue: try request.pathID())
                let (query, window) = try await FeedParameters.parse(request, categories: categories)
                return .json(PostPageResponse(try await influencers.scoped(context.scope).posts(id, query: query, viewer: viewer), query: query,
                                              window: window, now: now()))
            },
        ]
    }
}

/// The wire form of an influencer.
struct InfluencerResponse: JSONWritable {
    let profile: InfluencerProfile

    init(_ profile: InfluencerProfile) { self.profile = profile }

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("id", profile.summary.id.rawValue)
            json.field("username", profile.summary.username)
            json.field("full_name", profile.summary.fullName)
            json.field("profile_pic_url", profile.summary.profilePicURL)
            json.field("external_url", profile.summary.externalURL)
            json.field("biography", profile.biography)
            json.field("followers_count", profile.followersCount)
            json.field("category", profile.category?.rawValue)
            json.field("post_count", profile.postCount)
            json.field("app_followers_count", profile.appFollowersCount)
            json.field("is_followed", profile.isFollowed)
        }
    }
}

/// A page of influencers.
typealias InfluencerPageResponse = PageResponse<InfluencerResponse>
