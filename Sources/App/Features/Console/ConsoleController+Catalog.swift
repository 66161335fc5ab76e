import Domain
import Foundation
import HTTPServer

/// Influencer requests and influencers in the console.
extension ConsoleController {
    var contentRoutes: [Route] {
        postRoutes + [
            signedIn("GET", "/admin/requests") { visit in try await requestsPage(visit) },
            signedIn("POST", "/admin/requests/{id}/approve") { visit in
                let id = try Self.id(visit.request)
                let form = visit.form
                let followers = try form["followers_count"].map(Self.followers) ?? 0
                for field in ["profile_pic_url", "external_url"] { _ = try form[field].map { try ProfileRules.url($0, field: field) } }
                let profile = InstagramProfile(username: "", fullName: form["full_name"], biography: form["biography"], profilePicURL: form["profile_pic_url"],
                                               followersCount: followers, externalURL: form["external_url"]).storable
                guard try await console.store.approveRequest(id: id, profile: profile, by: visit.actor) != nil else {
                    throw DomainError.invalid(field: nil, message: "The request is approved already, or does not exist.")
                }
                return Self.redirect("/admin/requests?notice=approved")
            },
            signedIn("POST", "/admin/requests/{id}/reject") { visit in
                let reason = visit.form["reason"].flatMap(InfluencerRequest.Failure.init(rawValue:)) ?? .rejected
                guard try await console.store.rejectRequest(id: try Self.id(visit.request), reason: reason, by: visit.actor) != nil else {
                    throw DomainError.invalid(field: nil, message: "Only a request waiting for its lookup can be rejected.")
                }
                return Self.redirect("/admin/requests?notice=rejected")
            },
            signedIn("POST", "/admin/requests/{id}/retry") { visit in
                guard try await console.store.retryRequest(id: try Self.id(visit.request), by: visit.actor) != nil else {
                    throw DomainError.invalid(field: nil, message: "An approved request is not looked up again.")
                }
                return Self.redirect("/admin/requests?notice=retried")
            },
            signedIn("GET", "/admin/influencers") { visit in try await influencersPage(visit) },
            signedIn("GET", "/admin/influencers/{id}") { visit in try await influencerPage(visit, id: try Self.id(visit.request)) },
            signedIn("POST", "/admin/influencers/{id}") { visit in
                let id = try Self.id(visit.request)
                var changes = InfluencerChanges()
                changes.fullName = visit.form.fields.last { $0.name == "full_name" }?.value
                changes.biography = visit.form.fields.last { $0.name == "biography" }?.value
                changes.externalURL = try visit.form["external_url"].map { try ProfileRules.url($0, field: "external_url") }
                changes.followersCount = try visit.form["followers_count"].map(Self.followers)
                guard try await console.store.editInfluencer(id: InfluencerID(rawValue: id), changes: changes, by: visit.actor) else {
                    throw DomainError.notFound("influencer")
                }
                return Self.redirect("/admin/influencers/\(id)?notice=saved")
            },
            signedIn("POST", "/admin/influencers/{id}/hide") { visit in try await hideInfluencer(visit, hidden: true) },
            signedIn("POST", "/admin/influencers/{id}/show") { visit in try await hideInfluencer(visit, hidden: false) },
        ]
    }

    /// A followers count as the influencers table holds it.
    static func followers(_ text: String) throws -> Int {
        guard let count = Int(text), (0...Int(Int32.max)).contains(count) else {
            throw DomainError.invalid(field: "followers_count", message: "Followers is a whole number from 0 to 2147483647.")
        }
        return count
    }

    private func hideInfluencer(_ visit: Visit, hidden: Bool) async throws -> HTTPResponse {
        let id = try Self.id(visit.request)
        _ = try await console.store.setHidden(influencer: InfluencerID(rawValue: id), hidden: hidden, by: visit.actor)
        return Self.redirect("/admin/influencers/\(id)?notice=\(hidden ? "hidden" : "shown")")
    }

    private func requestsPage(_ visit: Visit) async throws -> HTTPResponse {
        let status = visit.request.query["status"].flatMap(InfluencerRequest.Status.init(rawValue:))
        let page = min(200, max(1, visit.request.query["page"].flatMap { Int($0) } ?? 1))
        let found = try await console.store.requests(status: status, offset: (page - 1) * Self.pageSize, limit: Self.pageSize)
        let session = visit.session
        let rows = found.items.map { request -> [HTML] in
            let actions: HTML = request.status == .approved
                ? (request.influencerID.map { "<a href=\"/admin/influencers/\($0.rawValue)\">Influencer \($0.rawValue)</a>" as HTML } ?? "")
                : """
                  <details><summary>Approve…</summary><form method="post" action="/admin/requests/\(request.id)/approve">\(ConsoleLayout.csrf(session))
                  \(ConsoleLayout.field("Name", name: "full_name", value: nil))
                  \(ConsoleLayout.field("Followers", name: "followers_count", value: nil, type: "number"))
                  \(ConsoleLayout.field("Profile link (URL)", name: "external_url", value: nil, type: "url"))
                  \(ConsoleLayout.field("Picture (URL)", name: "profile_pic_url", value: nil, type: "url"))
                  <p><button type="submit">Approve \(request.username)</button></p></form></details>
                  \(ConsoleLayout.button("Reject", action: "/admin/requests/\(request.id)/reject", session: session, danger: true,
                                         ConsoleLayout.select("Reason", name: "reason", options: InfluencerRequest.Failure.allCases.map { ($0.rawValue, $0.rawValue) },
                                                              selected: "rejected")))
                  \(ConsoleLayout.button("Retry lookup", action: "/admin/requests/\(request.id)/retry", session: session))
                  """
            return ["\(request.username)", "\(request.status.rawValue)", "\(request.reason?.rawValue ?? "—")", "\(request.attempts)",
                    "\(ConsoleLayout.date(request.createdAt))", actions]
        }
        let filter: HTML = """
            <form method="get" action="/admin/requests" class="filters">\(ConsoleLayout.select("Status", name: "status",
                options: [("", "Any")] + ["processing", "approved", "failed"].map { ($0, $0) }, selected: status?.rawValue))
            <p><button type="submit">Filter</button></p></form>
            """
        let body: HTML = """
            \(filter)<p>\(found.total) requests. The lookup (the server's, or the n8n workflow) settles them by the same rules; here an admin decides.</p>
            \(ConsoleLayout.table("Influencer requests, newest first", headers: ["Instagram name", "Status", "Reason", "Lookups", "Requested (KST)", "Actions"], rows: rows))
            \(ConsoleLayout.pager("/admin/requests", page: page, hasNext: page * Self.pageSize < found.total, query: status.map { ["status": $0.rawValue] } ?? [:]))
            """
        return Self.html(ConsoleLayout.page("Influencer requests", session: session, notice: Self.notice(visit.request), body))
    }

    private func influencersPage(_ visit: Visit) async throws -> HTTPResponse {
        let search = visit.request.query["q"].flatMap { $0.isEmpty ? nil : String($0.prefix(40)) }
        let hidden = visit.request.query["hidden"] == "1"
        let page = min(200, max(1, visit.request.query["page"].flatMap { Int($0) } ?? 1))
        let found = try await console.store.influencers(search: search, hidden: hidden, offset: (page - 1) * Self.pageSize, limit: Self.pageSize)
        let rows = found.items.map { influencer -> [HTML] in
            ["<a href=\"/admin/influencers/\(influencer.id.rawValue)\">\(influencer.username)</a>", "\(influencer.fullName)",
             "\(influencer.followersCount)", "\(influencer.postCount)", influencer.hiddenAt == nil ? "shown" : "<span class=\"hidden-tag\">hidden</span>"]
        }
        var query: [String: String] = [:]
        if let search { query["q"] = search }
        if hidden { query["hidden"] = "1" }
        let body: HTML = """
            <form method="get" action="/admin/influencers" class="filters" role="search">\(ConsoleLayout.field("Search", name: "q", value: search))
            \(ConsoleLayout.select("State", name: "hidden", options: [("", "Shown"), ("1", "Hidden")], selected: hidden ? "1" : ""))
            <p><button type="submit">Search</button></p></form><p>\(found.total) influencers.</p>
            \(ConsoleLayout.table("Influencers by followers", headers: ["Username", "Name", "Followers", "Posts", "State"], rows: rows))
            \(ConsoleLayout.pager("/admin/influencers", page: page, hasNext: page * Self.pageSize < found.total, query: query))
            """
        return Self.html(ConsoleLayout.page("Influencers", session: visit.session, notice: Self.notice(visit.request), body))
    }

    private func influencerPage(_ visit: Visit, id: Int) async throws -> HTTPResponse {
        guard let influencer = try await console.store.influencer(id: InfluencerID(rawValue: id)) else { throw DomainError.notFound("influencer") }
        let session = visit.session
        let visibility = influencer.hiddenAt == nil
            ? ConsoleLayout.button("Hide \(influencer.username) and all their posts", action: "/admin/influencers/\(id)/hide", session: session, danger: true)
            : ConsoleLayout.button("Show \(influencer.username) and their posts again", action: "/admin/influencers/\(id)/show", session: session)
        let body: HTML = """
            \(influencer.hiddenAt.map { "<p class=\"hidden-tag\">Hidden since \(ConsoleLayout.date($0)) KST, with their posts.</p>" as HTML } ?? "")
            <p><a href="/admin/posts?influencer=\(id)">Their \(influencer.postCount) shown posts</a> ·
            <a href="/admin/posts?influencer=\(id)&amp;hidden=1">their hidden posts</a></p>
            <form method="post" action="/admin/influencers/\(id)">\(ConsoleLayout.csrf(session))
            \(ConsoleLayout.field("Name", name: "full_name", value: influencer.fullName))
            <p><label for="f-biography">Biography</label><textarea id="f-biography" name="biography">\(influencer.biography)</textarea></p>
            \(ConsoleLayout.field("Followers", name: "followers_count", value: String(influencer.followersCount), type: "number"))
            \(ConsoleLayout.field("Profile link (URL)", name: "external_url", value: influencer.externalURL, type: "url"))
            <p><button type="submit">Save</button></p></form>
            <h2>Visibility</h2>\(visibility)
            """
        return Self.html(ConsoleLayout.page("Influencer \(influencer.username)", session: session, notice: Self.notice(visit.request), body))
    }
}
