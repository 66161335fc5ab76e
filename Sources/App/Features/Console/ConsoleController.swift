import Domain
import Foundation
import HTTPServer
import Workers

/// `/admin`: the operators' console, HTML rendered here (no build step, no script). Every
/// page but the sign-in needs an admin's console session; every form its CSRF token; every
/// change goes through ``ConsoleStore`` with the admin as its audited actor.
struct ConsoleController: Sendable {
    let console: OperatorsConsole
    let security: ConsoleSecurity
    let errors: ErrorResponses
    let endpoints: Endpoints
    let categories: CategoryResolver
    /// This instance's metrics, as exposition text (the overview's health).
    let health: @Sendable () -> String
    /// Threads for reading it (the collectors read /proc and statvfs), off the cooperative pool.
    let workers: BoundedWorkers
    let newKeyText: @Sendable (ServiceScope) -> String
    /// A random token (43 characters of base64url: 32 bytes), for the sign-in form.
    let newToken: @Sendable () -> String
    let now: @Sendable () -> Date

    /// A signed-in request: its session, the actor its changes are recorded as, and (for
    /// a POST) its checked form.
    struct Visit: Sendable {
        let request: HTTPRequest
        let session: ConsoleSession
        let actor: AdminActor
        let form: ConsoleForm
    }

    var routes: [Route] {
        var routes: [Route] = [
            Route(immediate: "GET", "/admin/console.css") { _ in
                var headers = HTTPHeaders([("Content-Type", "text/css; charset=utf-8"), ("Cache-Control", "max-age=3600")])
                headers.add("X-Content-Type-Options", "nosniff")
                return HTTPResponse(status: 200, headers: headers, body: Data(ConsoleStyles.css.utf8))
            },
            endpoints.route("GET", "/admin/login") { request, context in signInPage(request, context, error: nil) },
            endpoints.route("POST", "/admin/login") { request, context in try await signIn(request, context) },
            signedIn("POST", "/admin/logout") { visit in
                if let token = Cookies.value(ConsoleSecurity.sessionCookie, in: visit.request) { try await console.signOut(token: token) }
                var response = Self.redirect("/admin/login")
                response.headers.add("Set-Cookie", security.cookie(ConsoleSecurity.sessionCookie, nil, secure: !ConsoleSecurity.isLoopback(visit.request, client: visit.actor.address)))
                return response
            },
            signedIn("GET", "/admin") { visit in
                let overview = try await console.store.overview(now: now())
                return Self.html(ConsoleLayout.page("Overview", session: visit.session,
                                                    ConsoleOverviewPage.render(overview, health: ConsoleOverviewPage.health(try await workers.run(health)))))
            },
            signedIn("GET", "/admin/audit") { visit in try await auditPage(visit) },
        ]
        routes += contentRoutes + peopleRoutes
        return routes.map { $0.receiving(Reception(maxBodyBytes: 64 * 1024)) }
    }

    // MARK: Sign-in

    private func signInPage(_ request: HTTPRequest, _ context: AppContext, error: String?, status: Int = 200) -> HTTPResponse {
        // Double-submit token for the sign-in form (there is no session yet to bind it to).
        let token = Cookies.value(ConsoleSecurity.signInCookie, in: request).flatMap { $0.utf8.count == 43 ? $0 : nil } ?? newToken()
        let body: HTML = """
            <form method="post" action="/admin/login"><input type="hidden" name="csrf" value="\(token)">
            \(ConsoleLayout.field("Email", name: "email", value: nil, type: "email", required: true))
            \(ConsoleLayout.field("Password", name: "password", value: nil, type: "password", required: true))
            <p><button type="submit">Sign in</button></p></form>
            <p>Admins only. Make one on the server with <code>market09 admin create-user --email E --password-stdin --admin</code>.</p>
            """
        var response = Self.html(ConsoleLayout.page("Sign in", session: nil, error: error, body), status: status)
        response.headers.add("Set-Cookie", security.cookie(ConsoleSecurity.signInCookie, token, secure: !ConsoleSecurity.isLoopback(request, client: context.transport.client)))
        return response
    }

    private func signIn(_ request: HTTPRequest, _ context: AppContext) async throws -> HTTPResponse {
        let form = ConsoleForm(request.body)
        guard let expected = Cookies.value(ConsoleSecurity.signInCookie, in: request),
              ConsoleSecurity.formIsOurs(form, expected: expected, request: request) else {
            return signInPage(request, context, error: "The form expired or came from another site; sign in again.", status: 403)
        }
        let client = context.transport.client ?? "unknown"
        do {
            let (token, _) = try await console.signIn(email: form["email"] ?? "", password: form["password"] ?? "", client: client)
            // A new session at every sign-in: the browser's previous one (if any) ends.
            if let previous = Cookies.value(ConsoleSecurity.sessionCookie, in: request) { try await console.signOut(token: previous) }
            var response = Self.redirect("/admin")
            let secure = !ConsoleSecurity.isLoopback(request, client: context.transport.client)
            response.headers.add("Set-Cookie", security.cookie(ConsoleSecurity.sessionCookie, token, secure: secure))
            response.headers.add("Set-Cookie", security.cookie(ConsoleSecurity.signInCookie, nil, secure: secure))
            return response
        } catch DomainError.forbidden, AuthError.invalidCredentials, DomainError.invalid {
            return signInPage(request, context, error: "The email or password is wrong, or the account is not an admin.", status: 403)
        } catch {
            let answer = errors.answer(for: error, request: request)
            return signInPage(request, context, error: answer.message, status: answer.status)
        }
    }

    // MARK: Signed-in routes

    /// A route for admins with a live console session: a GET without one goes to the
    /// sign-in page; a POST without one, or without its CSRF token, is refused.
    func signedIn(_ method: String, _ path: String, _ handler: @escaping @Sendable (Visit) async throws -> HTTPResponse) -> Route {
        endpoints.route(method, path) { request, context in
            let session = try await Cookies.value(ConsoleSecurity.sessionCookie, in: request).asyncMap { try await console.session(token: $0) } ?? nil
            guard let session else {
                if method == "GET" { return Self.redirect("/admin/login") }
                return Self.html(ConsoleLayout.page("Signed out", session: nil, error: "Your console session has ended; sign in again.", ""), status: 403)
            }
            context.transport.log.user = session.userID.description
            let form = method == "POST" ? ConsoleForm(request.body) : ConsoleForm(Data())
            if method == "POST", !ConsoleSecurity.formIsOurs(form, expected: session.csrfToken, request: request) {
                return Self.html(ConsoleLayout.page("Refused", session: session, error: "The form did not come from this console (its token is missing or wrong).", ""),
                                 status: 403)
            }
            let actor = AdminActor(userID: session.userID, name: session.email, channel: .console, address: context.transport.client)
            do {
                return try await handler(Visit(request: request, session: session, actor: actor, form: form))
            } catch {
                let answer = errors.answer(for: error, request: request)
                return Self.html(ConsoleLayout.page("Not done", session: session, error: answer.message,
                                                    "<p><a href=\"/admin\">Back to the overview</a></p>" as HTML), status: answer.status)
            }
        }
    }

    private func auditPage(_ visit: Visit) async throws -> HTTPResponse {
        let search = visit.request.query["q"].flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }
        let before = visit.request.query["before"].flatMap { Int($0) }
        let entries = try await console.store.audit(AuditQuery(search: search, beforeID: before, limit: 50))
        let rows = entries.map { entry -> [HTML] in
            ["\(ConsoleLayout.date(entry.at))", "\(entry.actor)", "\(entry.channel.rawValue)", "\(entry.address ?? "—")", "\(entry.action)",
             "\(entry.target)", "<pre>\(entry.before ?? "—")</pre>", "<pre>\(entry.after ?? "—")</pre>"]
        }
        let query = (search ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let more: HTML = entries.count == 50
            ? "<p><a href=\"/admin/audit?before=\(entries.last?.id ?? 0)&amp;q=\(query)\">Older entries →</a></p>" : ""
        let body: HTML = """
            <form method="get" action="/admin/audit" class="filters" role="search">\(ConsoleLayout.field("Search", name: "q", value: search))
            <p><button type="submit">Search</button></p></form>
            <p>Every change made through the console, <code>market09 admin</code> and an admin's API calls. Read-only here; entries older
            than the retention (AUDIT_RETENTION_DAYS) are removed by the server.</p>
            \(ConsoleLayout.table("Audit log, newest first", headers: ["When (KST)", "Who", "Through", "Address", "Action", "Target", "Before", "After"], rows: rows))
            \(more)
            """
        return Self.html(ConsoleLayout.page("Audit log", session: visit.session, body))
    }

    // MARK: Answers

    static func html(_ page: HTML, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders(ConsoleSecurity.headers), body: Data(page.text.utf8))
    }

    /// 303 See Other: after a POST, the browser GETs `location` (a reload repeats nothing).
    static func redirect(_ location: String) -> HTTPResponse {
        var headers = HTTPHeaders(ConsoleSecurity.headers)
        headers.set("Location", location)
        return HTTPResponse(status: 303, headers: headers)
    }
}
