import Domain
import Foundation
import HTTPServer

/// Accounts and service keys in the console.
extension ConsoleController {
    var peopleRoutes: [Route] {
        [
            signedIn("GET", "/admin/users") { visit in try await usersPage(visit) },
            signedIn("GET", "/admin/users/{id}") { visit in try await userPage(visit, id: try Self.userID(visit.request)) },
            signedIn("POST", "/admin/users/{id}/role") { visit in
                let id = try Self.userID(visit.request)
                let role: Role = visit.form["role"] == "admin" ? .admin : .user
                guard try await console.store.setRole(role, user: id.description, by: visit.actor) != nil else {
                    throw DomainError.invalid(field: nil, message: "Only a permanent account can be an admin.")
                }
                return Self.redirect("/admin/users/\(id)?notice=role")
            },
            signedIn("POST", "/admin/users/{id}/sign-out") { visit in
                let id = try Self.userID(visit.request)
                _ = try await console.store.signOutEverywhere(user: id, by: visit.actor)
                return Self.redirect("/admin/users/\(id)?notice=signed_out")
            },
            signedIn("POST", "/admin/users/{id}/delete") { visit in
                let id = try Self.userID(visit.request)
                guard visit.form["confirm"] == "yes", let password = visit.form.fields.last(where: { $0.name == "password" })?.value, !password.isEmpty else {
                    throw DomainError.invalid(field: "password", message: "Tick the confirmation and enter your own password to delete an account.")
                }
                guard try await console.deleteUser(id, confirmingWith: password, session: visit.session, actor: visit.actor) else {
                    throw DomainError.notFound("user")
                }
                return Self.redirect("/admin/users?notice=deleted")
            },
            signedIn("GET", "/admin/keys") { visit in try await keysPage(visit, created: nil) },
            signedIn("POST", "/admin/keys") { visit in
                guard let name = visit.form["name"], ServiceKeyText.isValidName(name) else {
                    throw DomainError.invalid(field: "name", message: "A key's name is 1-64 of A-Z, a-z, 0-9, '.', '_', '-'.")
                }
                let text = newKeyText(.ingest)
                _ = try await console.store.createKey(name: name, scope: .ingest, text: text, by: visit.actor)
                // Shown once, on this answer to the POST; never stored or shown again.
                return try await keysPage(visit, created: text)
            },
            signedIn("POST", "/admin/keys/{id}/revoke") { visit in
                guard try await console.store.revokeKey(nameOrID: String(try Self.id(visit.request)), by: visit.actor) != nil else {
                    throw DomainError.notFound("api_key")
                }
                return Self.redirect("/admin/keys?notice=revoked")
            },
        ]
    }

    static func userID(_ request: HTTPRequest) throws -> UserID {
        guard let text = request.pathParameters["id"], let id = UUID(uuidString: text) else { throw DomainError.notFound("user") }
        return UserID(rawValue: id)
    }

    private func usersPage(_ visit: Visit) async throws -> HTTPResponse {
        let search = visit.request.query["q"].flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }
        let page = min(200, max(1, visit.request.query["page"].flatMap { Int($0) } ?? 1))
        let found = try await console.store.users(search: search, offset: (page - 1) * Self.pageSize, limit: Self.pageSize)
        let rows = found.items.map { user -> [HTML] in
            ["<a href=\"/admin/users/\(user.id.description)\">\(user.email ?? user.id.description)</a>", "\(user.nickname)", "\(user.role.rawValue)",
             "\(ConsoleLayout.date(user.createdAt))", "\(user.liveSessions)", "\(user.likes)", "\(user.posts)"]
        }
        let body: HTML = """
            <form method="get" action="/admin/users" class="filters" role="search">\(ConsoleLayout.field("Email, nickname or id", name: "q", value: search))
            <p><button type="submit">Search</button></p></form><p>\(found.total) accounts (anonymous ones are found by id).</p>
            \(ConsoleLayout.table("Accounts, newest first", headers: ["Account", "Nickname", "Role", "Joined (KST)", "Live sessions", "Likes", "Posts"], rows: rows))
            \(ConsoleLayout.pager("/admin/users", page: page, hasNext: page * Self.pageSize < found.total, query: search.map { ["q": $0] } ?? [:]))
            """
        return Self.html(ConsoleLayout.page("Users", session: visit.session, notice: Self.notice(visit.request), body))
    }

    private func userPage(_ visit: Visit, id: UserID) async throws -> HTTPResponse {
        guard let user = try await console.store.user(id: id) else { throw DomainError.notFound("user") }
        let sessions = try await console.store.sessions(of: id, limit: 20).map { entry -> [HTML] in
            ["\(ConsoleLayout.date(entry.createdAt))", "\(ConsoleLayout.date(entry.refreshedAt))",
             entry.revokedAt.map { "ended \(ConsoleLayout.date($0)) (\(entry.revokedReason ?? "—"))" as HTML } ?? "live"]
        }
        let session = visit.session
        let role: HTML = user.isAnonymous ? "<p>An anonymous account cannot be an admin.</p>"
            : ConsoleLayout.button(user.role == .admin ? "Remove admin" : "Make admin", action: "/admin/users/\(id.description)/role", session: session,
                                   danger: user.role == .admin, "<input type=\"hidden\" name=\"role\" value=\"\(user.role == .admin ? "user" : "admin")\">")
        let body: HTML = """
            <dl><dt>Id</dt><dd>\(id.description)</dd><dt>Email</dt><dd>\(user.email ?? "—")</dd><dt>Nickname</dt><dd>\(user.nickname ?? "—")</dd>
            <dt>Role</dt><dd>\(user.role.rawValue)\(user.isAnonymous ? " (anonymous)" : "")</dd><dt>Joined</dt><dd>\(ConsoleLayout.date(user.createdAt)) KST</dd>
            <dt>Live sessions</dt><dd>\(user.liveSessions)</dd><dt>Likes</dt><dd>\(user.likes)</dd>
            <dt>Posts</dt><dd>\(user.posts)</dd><dt>Influencer requests</dt><dd>\(user.requests)</dd></dl>
            <h2>Role</h2>\(role)
            <h2>Sessions</h2>\(ConsoleLayout.table("Latest sessions, live first", headers: ["Signed in (KST)", "Last refreshed", "State"], rows: sessions))
            \(ConsoleLayout.button("Sign out everywhere", action: "/admin/users/\(id.description)/sign-out", session: session))
            <h2>Delete the account</h2>
            <form method="post" action="/admin/users/\(id.description)/delete">\(ConsoleLayout.csrf(session))
            <p><input type="checkbox" id="confirm-user" name="confirm" value="yes" required> <label for="confirm-user" class="inline-label">Delete this account, its likes and sessions for good</label></p>
            \(ConsoleLayout.field("Your password", name: "password", value: nil, type: "password", required: true))
            <p><button type="submit" class="danger">Delete account</button></p></form>
            """
        return Self.html(ConsoleLayout.page("User \(user.email ?? user.nickname ?? id.description)", session: session, notice: Self.notice(visit.request), body))
    }

    private func keysPage(_ visit: Visit, created: String?) async throws -> HTTPResponse {
        let keys = try await console.store.keys()
        let session = visit.session
        let rows = keys.map { key -> [HTML] in
            ["\(key.id)", "\(key.name)", "\(key.scope.rawValue)", key.revokedAt.map { "revoked \(ConsoleLayout.date($0))" as HTML } ?? "live",
             "\(ConsoleLayout.date(key.createdAt))", "\(ConsoleLayout.date(key.lastUsedAt))", "\(key.calls)",
             key.revokedAt == nil ? ConsoleLayout.button("Revoke", action: "/admin/keys/\(key.id)/revoke", session: session, danger: true) : ""]
        }
        let shown: HTML = created.map { text in
            """
            <div role="status"><p class="notice">Created. This is the key's only showing: put it in the service's secret store now (n8n: a Header Auth credential).</p>
            <p class="secret" id="new-key">\(text)</p></div>
            """
        } ?? ""
        let body: HTML = """
            \(shown)
            <form method="post" action="/admin/keys">\(ConsoleLayout.csrf(session))\(ConsoleLayout.field("New ingest key's name", name: "name", value: nil, required: true))
            <p><button type="submit">Create key</button></p></form>
            \(ConsoleLayout.table("Service API keys", headers: ["Id", "Name", "Scope", "State", "Created (KST)", "Last used (KST)", "Calls", ""], rows: rows))
            """
        return Self.html(ConsoleLayout.page("API keys", session: session, notice: created == nil ? Self.notice(visit.request) : nil, body))
    }
}
