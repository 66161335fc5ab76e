import Domain
import Foundation
import HTTPServer

/// Posts in the console: search and filters, a post's page, edit, hide/show, delete, bulk.
extension ConsoleController {
    static let pageSize = 50

    var postRoutes: [Route] {
        [
            signedIn("GET", "/admin/posts") { visit in try await postsPage(visit) },
            signedIn("GET", "/admin/posts/{id}") { visit in try await postPage(visit, id: try Self.id(visit.request)) },
            signedIn("POST", "/admin/posts/{id}") { visit in
                let id = try Self.id(visit.request)
                try await console.store.editPost(id: PostID(rawValue: id), changes: try await postChanges(visit.form), by: visit.actor)
                return Self.redirect("/admin/posts/\(id)?notice=saved")
            },
            signedIn("POST", "/admin/posts/{id}/hide") { visit in try await hide(visit, [try Self.id(visit.request)], hidden: true) },
            signedIn("POST", "/admin/posts/{id}/show") { visit in try await hide(visit, [try Self.id(visit.request)], hidden: false) },
            signedIn("POST", "/admin/posts/{id}/delete") { visit in
                let id = try Self.id(visit.request)
                guard visit.form["confirm"] == "yes" else {
                    throw DomainError.invalid(field: "confirm", message: "Tick “Delete this post for good” to delete it.")
                }
                guard try await console.store.deletePost(id: PostID(rawValue: id), by: visit.actor) else { throw DomainError.notFound("post") }
                return Self.redirect("/admin/posts?notice=deleted")
            },
            signedIn("POST", "/admin/posts/bulk") { visit in
                let ids = visit.form.all("ids").compactMap { Int($0) }
                return try await hide(visit, ids, hidden: visit.form["action"] != "show")
            },
        ]
    }

    private func hide(_ visit: Visit, _ ids: [Int], hidden: Bool) async throws -> HTTPResponse {
        let changed = try await console.setHidden(posts: ids.map(PostID.init(rawValue:)), hidden: hidden,
                                                  confirmedCount: visit.form["confirm_count"].flatMap { Int($0) }, actor: visit.actor)
        let target = ids.count == 1 ? "/admin/posts/\(ids[0])" : "/admin/posts"
        return Self.redirect("\(target)?notice=\(hidden ? "hidden" : "shown")&count=\(changed)")
    }

    static func id(_ request: HTTPRequest) throws -> Int {
        guard let text = request.pathParameters["id"], let id = Int(text), id > 0 else { throw DomainError.notFound("page") }
        return id
    }

    /// What a redirect's `notice` says: fixed sentences, so nothing a link carries is echoed.
    static func notice(_ request: HTTPRequest) -> String? {
        let count = request.query["count"].flatMap { Int($0) }.map(String.init) ?? "1"
        switch request.query["notice"] {
        case "saved": return "Saved."
        case "hidden": return "Hidden: \(count). Gone from every feed, search, Top 10 and the app; kept for its owner and admins."
        case "shown": return "Shown again: \(count)."
        case "deleted": return "Deleted."
        case "created": return "Created."
        case "revoked": return "Revoked."
        case "approved": return "Approved."
        case "rejected": return "Rejected."
        case "retried": return "Open again for the lookup."
        case "signed_out": return "Every session of the account has ended."
        case "role": return "Role changed."
        default: return nil
        }
    }

    private func postsPage(_ visit: Visit) async throws -> HTTPResponse {
        let query = visit.request.query
        var filter = ConsolePostFilter()
        filter.search = query["q"].flatMap { $0.isEmpty ? nil : String($0.prefix(40)) }
        filter.category = query["category"].flatMap { $0.isEmpty ? nil : CategoryID(rawValue: $0) }
        filter.status = query["status"].flatMap(PostStatus.init(rawValue:))
        filter.source = query["source"].flatMap { ConsolePostFilter.sources.contains($0) ? $0 : nil }
        filter.influencer = query["influencer"].flatMap { Int($0) }.map(InfluencerID.init(rawValue:))
        filter.hidden = query["hidden"] == "1"
        let page = min(200, max(1, query["page"].flatMap { Int($0) } ?? 1))
        let found = try await console.store.posts(filter, now: now(), offset: (page - 1) * Self.pageSize, limit: Self.pageSize)
        let categories = try await categories.all()
        let rows = found.items.map { post -> [HTML] in
            ["<input type=\"checkbox\" name=\"ids\" value=\"\(post.id.rawValue)\" aria-label=\"Select post \(post.id.rawValue)\">",
             "<a href=\"/admin/posts/\(post.id.rawValue)\">\(post.productName)</a>",
             "<a href=\"/admin/influencers/\(post.influencerID.rawValue)\">\(post.influencerUsername)</a>",
             "\(post.category.rawValue)", "\(post.source)", "\(ConsoleLayout.date(post.groupBuyingStart)) → \(ConsoleLayout.date(post.groupBuyingEnd))",
             "\(post.likesCount)", post.hiddenAt == nil ? "shown" : "<span class=\"hidden-tag\">hidden</span>"]
        }
        let filters: HTML = """
            <form method="get" action="/admin/posts" class="filters" role="search">
            \(ConsoleLayout.field("Search", name: "q", value: filter.search))
            \(ConsoleLayout.select("Category", name: "category", options: [("", "Any")] + categories.map { ($0.id.rawValue, $0.name) }, selected: filter.category?.rawValue))
            \(ConsoleLayout.select("Status", name: "status", options: [("", "Any")] + PostStatus.allCases.map { ($0.rawValue, $0.rawValue) }, selected: filter.status?.rawValue))
            \(ConsoleLayout.select("Source", name: "source", options: [("", "Any")] + ConsolePostFilter.sources.map { ($0, $0) }, selected: filter.source))
            \(ConsoleLayout.field("Influencer id", name: "influencer", value: filter.influencer.map(\.description)))
            \(ConsoleLayout.select("State", name: "hidden", options: [("", "Shown"), ("1", "Hidden")], selected: filter.hidden ? "1" : ""))
            <p><button type="submit">Filter</button></p></form>
            """
        let total = found.total > ConsolePostFilter.countedUpTo ? "more than \(ConsolePostFilter.countedUpTo)" : String(found.total)
        let body: HTML = """
            \(filters)<p>\(total) posts.</p>
            <form method="post" action="/admin/posts/bulk">\(ConsoleLayout.csrf(visit.session))
            \(ConsoleLayout.table("Posts, newest first", headers: ["", "Product", "Influencer", "Category", "Source", "Window (KST)", "Likes", "State"], rows: rows))
            \(ConsoleLayout.select("With the selected posts", name: "action", options: [("hide", "Hide"), ("show", "Show again")], selected: nil))
            \(ConsoleLayout.field("Over \(OperatorsConsole.bulkConfirmationThreshold) posts: type their number to confirm", name: "confirm_count", value: nil))
            <p><button type="submit">Apply to selected</button></p></form>
            \(ConsoleLayout.pager("/admin/posts", page: page, hasNext: page * Self.pageSize < found.total, query: query.filter { $0.key != "page" && $0.key != "notice" && $0.key != "count" }))
            """
        return Self.html(ConsoleLayout.page("Posts", session: visit.session, notice: Self.notice(visit.request), body))
    }

    private func postPage(_ visit: Visit, id: Int) async throws -> HTTPResponse {
        guard let post = try await console.store.post(id: PostID(rawValue: id)) else { throw DomainError.notFound("post") }
        let categories = try await categories.all()
        let session = visit.session
        let state: HTML = post.hiddenAt.map { "<p class=\"hidden-tag\">Hidden since \(ConsoleLayout.date($0)) KST.</p>" }
            ?? "<p>Shown in the feed.</p>"
        let edit: HTML = post.hiddenAt == nil ? """
            <h2>Edit</h2><form method="post" action="/admin/posts/\(id)">\(ConsoleLayout.csrf(session))
            \(ConsoleLayout.field("Product", name: "product_name", value: post.productName, required: true))
            \(ConsoleLayout.field("Price (won)", name: "price", value: post.price.map(String.init), type: "number"))
            \(ConsoleLayout.select("Category", name: "category", options: categories.map { ($0.id.rawValue, $0.name) }, selected: post.category.rawValue))
            \(ConsoleLayout.field("Window opens (KST)", name: "group_buying_start", value: Self.localTime(post.groupBuyingStart), type: "datetime-local"))
            \(ConsoleLayout.field("Window closes (KST)", name: "group_buying_end", value: Self.localTime(post.groupBuyingEnd), type: "datetime-local"))
            \(ConsoleLayout.field("Where to buy (URL)", name: "group_buying_url", value: post.groupBuyingURL, type: "url"))
            <p><button type="submit">Save</button></p></form>
            """ : "<p>Show the post again to edit it.</p>"
        let body: HTML = """
            \(state)
            <dl><dt>Influencer</dt><dd><a href="/admin/influencers/\(post.influencerID.rawValue)">\(post.influencerUsername)</a></dd>
            <dt>Source</dt><dd>\(post.source)</dd><dt>Likes</dt><dd>\(post.likesCount)</dd>
            <dt>Submitted by</dt><dd>\(post.submittedBy.map { "<a href=\"/admin/users/\($0.description)\">\($0.description)</a>" as HTML } ?? "—")</dd>
            <dt>Image</dt><dd>\(post.displayURL ?? "—")</dd><dt>Caption</dt><dd><pre>\(post.caption ?? "—")</pre></dd></dl>
            \(edit)
            <h2>Visibility</h2>
            \(post.hiddenAt == nil ? ConsoleLayout.button("Hide this post", action: "/admin/posts/\(id)/hide", session: session, danger: true)
                                   : ConsoleLayout.button("Show this post again", action: "/admin/posts/\(id)/show", session: session))
            <h2>Delete</h2>
            <form method="post" action="/admin/posts/\(id)/delete">\(ConsoleLayout.csrf(session))
            <p><input type="checkbox" id="confirm-delete" name="confirm" value="yes" required> <label for="confirm-delete" class="inline-label">Delete this post for good (its likes too)</label></p>
            <p><button type="submit" class="danger">Delete</button></p></form>
            """
        return Self.html(ConsoleLayout.page("Post \(id): \(post.productName)", session: session, notice: Self.notice(visit.request), body))
    }

    /// The edit form's fields as changes (an empty price leaves it).
    private func postChanges(_ form: ConsoleForm) async throws -> PostChanges {
        var changes = PostChanges()
        changes.productName = form["product_name"]
        if let price = form["price"] {
            guard let value = Int(price) else { throw DomainError.invalid(field: "price", message: "The price is a whole number of won.") }
            changes.price = try PostRules.price(value)
        }
        changes.category = try await form["category"].asyncMap { try await categories.resolve($0) }
        changes.groupBuyingStart = try form["group_buying_start"].map { try Self.parseLocalTime($0, field: "group_buying_start") }
        changes.groupBuyingEnd = try form["group_buying_end"].map { try Self.parseLocalTime($0, field: "group_buying_end") }
        changes.groupBuyingURL = try form["group_buying_url"].map { try ProfileRules.url($0, field: "group_buying_url") }
        if let name = changes.productName { changes.productName = try PostRules.productName(name) }
        return changes
    }

    private static let korea = TimeZone(secondsFromGMT: 9 * 3600)!

    /// `YYYY-MM-DDTHH:MM` in Korean time, as a `datetime-local` field shows it.
    static func localTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = korea
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    static func parseLocalTime(_ text: String, field: String) throws -> Date {
        let numbers = text.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = korea
        guard numbers.count >= 5, let date = calendar.date(from: DateComponents(year: numbers[0], month: numbers[1], day: numbers[2],
                                                                               hour: numbers[3], minute: numbers[4])),
              (2000...2100).contains(numbers[0]) else {
            throw DomainError.invalid(field: field, message: "\(field) is a date and time such as 2026-12-05T09:00 (Korean time).")
        }
        return date
    }
}
