import Domain
import Foundation
import HTTPServer

/// Follows of influencers and the schedule of their posts: `/v1/influencers/{id}/follow`,
/// `/v1/me/follows`, `/v1/me/schedule`.
struct FollowsController: Sendable {
    let follows: Follows
    let signedIn: AuthenticatedRoutes
    let now: @Sendable () -> Date

    var routes: [Route] {
        [
            signedIn.permanent("PUT", "/influencers/{id}/follow") { request, context, user in
                let id = try request.pathID()
                return .json(FollowResponse(influencerID: id, followed: true,
                                            appFollowersCount: try await follows.follow(InfluencerID(rawValue: id), by: user)))
            },
            signedIn.permanent("DELETE", "/influencers/{id}/follow") { request, context, user in
                let id = try request.pathID()
                return .json(FollowResponse(influencerID: id, followed: false,
                                            appFollowersCount: try await follows.unfollow(InfluencerID(rawValue: id), by: user)))
            },
            signedIn.route("GET", "/me/follows") { request, context, viewer in
                let window = try request.pageWindow()
                let found = try await follows.scoped(context.scope).followed(by: viewer, page: window.page, limit: window.limit)
                return .json(InfluencerPageResponse(found, window: window, item: InfluencerResponse.init))
            },
            signedIn.route("GET", "/me/schedule") { request, context, viewer in
                let days = try Self.days(request)
                let grouped = try Self.grouping(request)
                let window = try request.pageWindow()
                let found = try await follows.scoped(context.scope).schedule(days, viewer: viewer, page: window.page, limit: window.limit)
                let now = now()
                let hasNext = window.hasNext(total: found.total)
                if grouped {
                    return .json(ScheduleDaysResponse(days: ScheduleDay.grouping(found.items), now: now, total: found.total,
                                                      page: window.page, limit: window.limit, hasNext: hasNext))
                }
                return .json(PostPageResponse(found, window: window, now: now))
            },
        ]
    }

    /// `start_date` and `end_date` (Korea dates, both required, in order).
    private static func days(_ request: HTTPRequest) throws -> ClosedRange<KoreaDay> {
        func day(_ name: String) throws -> KoreaDay {
            guard let text = request.query[name] else { throw APIError.invalidParameter(name, "\(name) is required (YYYY-MM-DD)") }
            guard let day = KoreaDay(text) else { throw APIError.invalidParameter(name, "\(name) must be YYYY-MM-DD") }
            return day
        }
        let start = try day("start_date")
        let end = try day("end_date")
        guard start <= end else { throw APIError.invalidParameter("end_date", "end_date must not be before start_date") }
        return start...end
    }

    /// `group=day` answers days with their posts; absent, a page of posts.
    private static func grouping(_ request: HTTPRequest) throws -> Bool {
        switch request.query["group"] {
        case nil: false
        case "day": true
        default: throw APIError.invalidParameter("group", "group must be day")
        }
    }
}

/// The answer to a follow or unfollow.
struct FollowResponse: JSONWritable {
    let influencerID: Int
    let followed: Bool
    let appFollowersCount: Int

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("influencer_id", influencerID)
            json.field("followed", followed)
            json.field("app_followers_count", appFollowersCount)
        }
    }
}

/// A schedule page grouped by the day each post's window ends:
/// `{days: [{date, posts}], total, page, limit, has_next}`.
struct ScheduleDaysResponse: JSONWritable {
    let days: [ScheduleDay]
    let now: Date
    let total: Int
    let page: Int
    let limit: Int
    let hasNext: Bool

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("days", days.map { ScheduleDayResponse(day: $0, now: now) })
            json.field("total", total)
            json.field("page", page)
            json.field("limit", limit)
            json.field("has_next", hasNext)
        }
    }
}

private struct ScheduleDayResponse: JSONWritable {
    let day: ScheduleDay
    let now: Date

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("date", day.day.description)
            json.field("posts", day.posts.map { PostResponse(post: $0, now: now) })
        }
    }
}
