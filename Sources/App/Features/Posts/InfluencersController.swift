import Domain
import Foundation

/// `/v1/influencers`: search, profiles and their posts.
struct InfluencersController: Sendable {
    let influencers: Influencers
    let authenticator: Authenticator
    let categories: CategoryResolver
    let now: @Sendable () -> Date

    var routes: [Route] {
        let authenticated = AuthenticatedRoutes(authenticator: authenticator)
        return [
            authenticated.route("GET", "/influencers") { request, _ in
                let page = try request.queryInteger("page", in: 1...100_000, default: 1)
                let limit = try request.queryInteger("limit", in: 1...50, default: 20)
                let search = request.query["search"]?.trimmingCharacters(in: .whitespacesAndNewlines)
                if let search, search.count > 100 { throw APIError.invalidParameter("search", "search must be at most 100 characters") }
                let found = try await influencers.search(search?.isEmpty == false ? search : nil, page: page, limit: limit)
                return try .json(InfluencerPageResponse(data: found.items.map(InfluencerResponse.init), total: found.total, page: page,
                                                        limit: limit, hasNext: page * limit < found.total))
            },
            authenticated.route("GET", "/influencers/{id}") { request, _ in
                try .json(InfluencerResponse(try await influencers.profile(InfluencerID(rawValue: try request.pathID()))))
            },
            authenticated.route("GET", "/influencers/{id}/posts") { request, viewer in
                let id = InfluencerID(rawValue: try request.pathID())
                let query = try await FeedParameters.parse(request, categories: categories)
                return try .json(FeedController.response(try await influencers.posts(id, query: query, viewer: viewer), query: query, now: now()))
            },
        ]
    }
}

/// The wire form of an influencer.
struct InfluencerResponse: Encodable {
    let profile: InfluencerProfile

    init(_ profile: InfluencerProfile) { self.profile = profile }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(profile.summary.id.rawValue, forKey: .id)
        try container.encode(profile.summary.username, forKey: .username)
        try container.encode(profile.summary.fullName, forKey: .fullName)
        try container.encode(profile.summary.profilePicURL, forKey: .profilePicURL)
        try container.encode(profile.summary.externalURL, forKey: .externalURL)
        try container.encode(profile.biography, forKey: .biography)
        try container.encode(profile.followersCount, forKey: .followersCount)
        try container.encode(profile.category?.rawValue, forKey: .category)
        try container.encode(profile.postCount, forKey: .postCount)
    }

    private enum Keys: String, CodingKey {
        case id, username, biography, category
        case fullName = "full_name", profilePicURL = "profile_pic_url", externalURL = "external_url"
        case followersCount = "followers_count", postCount = "post_count"
    }
}

/// A page of influencers.
struct InfluencerPageResponse: Encodable {
    let data: [InfluencerResponse]
    let total: Int
    let page: Int
    let limit: Int
    let hasNext: Bool

    enum CodingKeys: String, CodingKey {
        case data, total, page, limit
        case hasNext = "has_next"
    }
}
