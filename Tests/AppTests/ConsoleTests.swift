import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// The operators' console's door and its rules, over HTTP in process: the cookie and the
/// headers, the CSRF check, escaping, who may enter, the last admin, and what hiding keeps.
@Suite struct ConsoleTests {
    /// A browser's view of the console: its cookies and the page's CSRF token.
    struct Browser {
        let app: TestApp
        var cookies: [String: String] = [:]
        var csrf = ""
        var address = "203.0.113.7"
        var host = "console.example"

        mutating func send(_ method: String, _ path: String, form: [(String, String)] = [], origin: String? = nil) async throws -> TestResponse {
            var headers = [("Host", host)]
            if !cookies.isEmpty { headers.append(("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))) }
            if let origin { headers.append(("Origin", origin)) }
            var body: Data?
            if method == "POST" {
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                body = Data(form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&").utf8)
            }
            let response = try await app.send(method, path, body: body, headers: headers, remoteAddress: address)
            for cookie in response.response.headers.values(of: "Set-Cookie") {
                let pair = cookie.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if pair.count == 2 { cookies[String(pair[0])] = pair[1].isEmpty ? nil : String(pair[1]) }
            }
            if let range = response.text.range(of: "name=\"csrf\" value=\"") {
                csrf = String(response.text[range.upperBound...].prefix { $0 != "\"" })
            }
            return response
        }

        mutating func signIn(_ email: String, _ password: String) async throws -> TestResponse {
            _ = try await send("GET", "/admin/login")
            return try await send("POST", "/admin/login", form: [("csrf", csrf), ("email", email), ("password", password)])
        }
    }

    /// A permanent account with a password, made an admin when `admin`.
    private func account(_ app: TestApp, _ email: String, admin: Bool) async throws -> UUID {
        let signUp = try await app.send("POST", "/v1/auth/signup", json: ["email": email, "password": "console-password-1"])
        let id = try #require(UUID(uuidString: ((signUp.json["user"] as? [String: any Sendable])?["id"] as? String) ?? ""), "\(signUp.text)")
        if admin {
            try await app.database.pool.withConnection { try $0.execute("UPDATE users SET role = 'admin' WHERE id = \(id)") }
        }
        return id
    }

    @Test func theSessionCookieAndEveryPageAreLockedDown() async throws {
        try await withTestApp { app async throws in
            _ = try await account(app, "ops@console.test", admin: true)
            var browser = Browser(app: app)
            let signedIn = try await browser.signIn("ops@console.test", "console-password-1")
            #expect(signedIn.status == 303 && signedIn.header("Location") == "/admin", "\(signedIn.text)")
            let cookie = try #require(signedIn.response.headers.values(of: "Set-Cookie").first { $0.hasPrefix("market09_console=") })
            for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/admin", "Max-Age=1800"] { #expect(cookie.contains(flag), "\(cookie)") }
            let overview = try await browser.send("GET", "/admin")
            #expect(overview.status == 200 && overview.text.contains("Posts by category now"))
            let policy = try #require(overview.header("Content-Security-Policy"))
            #expect(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'none'") && !policy.contains("unsafe-inline"), "\(policy)")
            #expect(overview.header("Cache-Control") == "no-store" && overview.header("X-Frame-Options") == "DENY")
            #expect(!overview.text.contains("<script") && !overview.text.contains("style="), "inline code the policy would refuse")

            // On loopback (a developer's http://127.0.0.1) the cookie may travel without TLS.
            var local = Browser(app: app, address: "127.0.0.1", host: "127.0.0.1:8080")
            let localSignIn = try await local.signIn("ops@console.test", "console-password-1")
            #expect(localSignIn.response.headers.values(of: "Set-Cookie").contains { $0.hasPrefix("market09_console=") && !$0.contains("Secure") })

            // Idle past the timeout: the session is over.
            app.clock.advance(by: 31 * 60)
            #expect(try await browser.send("GET", "/admin").header("Location") == "/admin/login")
        }
    }

    @Test func onlyAdminsEnterAndAFormWithoutItsTokenChangesNothing() async throws {
        try await withTestApp { app async throws in
            _ = try await account(app, "ops@console.test", admin: true)
            _ = try await account(app, "member@console.test", admin: false)
            var anonymous = Browser(app: app)
            #expect(try await anonymous.send("GET", "/admin/users").header("Location") == "/admin/login")
            #expect(try await anonymous.send("POST", "/admin/posts/1/hide").status == 403)
            var member = Browser(app: app)
            let refused = try await member.signIn("member@console.test", "console-password-1")
            #expect(refused.status == 403 && member.cookies["market09_console"] == nil && refused.text.contains("not an admin"))
            // The sign-in form itself needs its token (login CSRF).
            var forged = Browser(app: app)
            #expect(try await forged.send("POST", "/admin/login", form: [("email", "ops@console.test"), ("password", "console-password-1")]).status == 403)

            let influencer = try await app.influencer("csrf.kim")
            let (_, owner) = try await app.user()
            _ = owner
            let post: Int = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                    VALUES (\(influencer), '크림', 'beauty', now(), now() + interval '2 days') RETURNING id
                    """).single().decode(0)
            }
            var admin = Browser(app: app)
            _ = try await admin.signIn("ops@console.test", "console-password-1")
            _ = try await admin.send("GET", "/admin/posts/\(post)")
            #expect(try await admin.send("POST", "/admin/posts/\(post)/hide", form: [("csrf", "wrong")]).status == 403)
            #expect(try await admin.send("POST", "/admin/posts/\(post)/hide", form: [("csrf", admin.csrf)], origin: "https://evil.example").status == 403)
            #expect(try await app.send("GET", "/v1/posts/\(post)", token: owner).status == 200, "a forged form hid the post")
            #expect(try await admin.send("POST", "/admin/posts/\(post)/hide", form: [("csrf", admin.csrf)], origin: "https://console.example").status == 303)
            #expect(try await app.send("GET", "/v1/posts/\(post)", token: owner).status == 404)
        }
    }

    @Test func hostileTextIsShownAsText() async throws {
        try await withTestApp { app async throws in
            _ = try await account(app, "ops@console.test", admin: true)
            let id: Int = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    INSERT INTO influencers (username, full_name, biography) VALUES ('hostile.kim', '<img src=x onerror=alert(1)>', '"><script>alert(1)</script>')
                    RETURNING id
                    """).single().decode(0)
            }
            var admin = Browser(app: app)
            _ = try await admin.signIn("ops@console.test", "console-password-1")
            let page = try await admin.send("GET", "/admin/influencers/\(id)")
            #expect(page.status == 200)
            #expect(!page.text.contains("<script>alert") && !page.text.contains("<img src=x"), "\(page.text)")
            #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;") && page.text.contains("&quot;&gt;&lt;script&gt;"))

            // A post's name and caption on its page and in the list (plain and optional texts).
            let post: Int = try await app.database.pool.withConnection { connection in
                try connection.query("""
                    INSERT INTO posts (influencer_id, product_name, caption, category_id, group_buying_start, group_buying_end)
                    VALUES (\(id), '<script>alert(2)</script>크림', '<img src=y onerror=alert(3)>', 'beauty', now(), now() + interval '1 day')
                    RETURNING id
                    """).single().decode(0)
            }
            for path in ["/admin/posts/\(post)", "/admin/posts"] {
                let shown = try await admin.send("GET", path)
                #expect(shown.status == 200 && !shown.text.contains("<script>alert(2)") && !shown.text.contains("<img src=y"), "\(path)")
                #expect(shown.text.contains("&lt;script&gt;alert(2)&lt;/script&gt;크림"), "\(path)")
            }

            // Out-of-range and malformed edits are refused with a message, never a 500.
            for form in [[("followers_count", "99999999999")], [("followers_count", "-5")], [("full_name", String(repeating: "가", count: 101))],
                         [("external_url", "javascript:alert(1)")]] {
                let edited = try await admin.send("POST", "/admin/influencers/\(id)", form: [("csrf", admin.csrf)] + form)
                #expect(edited.status == 400, "\(form.map(\.0)): \(edited.status) \(edited.text.prefix(300))")
            }
        }
    }

    @Test func theLastAdminStaysAndARevokedAdminIsSignedOutAtOnce() async throws {
        try await withTestApp { app async throws in
            let ops = try await account(app, "ops@console.test", admin: true)
            var admin = Browser(app: app)
            _ = try await admin.signIn("ops@console.test", "console-password-1")
            _ = try await admin.send("GET", "/admin/users/\(ops.uuidString)")
            let refused = try await admin.send("POST", "/admin/users/\(ops.uuidString)/role", form: [("csrf", admin.csrf), ("role", "user")])
            #expect(refused.status == 403 && refused.text.contains("last admin"), "\(refused.text)")
            let second = try await account(app, "second@console.test", admin: true)
            var other = Browser(app: app)
            _ = try await other.signIn("second@console.test", "console-password-1")
            _ = try await admin.send("GET", "/admin/users/\(second.uuidString)")
            let demoted = try await admin.send("POST", "/admin/users/\(second.uuidString)/role", form: [("csrf", admin.csrf), ("role", "user")])
            #expect(demoted.status == 303)
            #expect(try await other.send("GET", "/admin").header("Location") == "/admin/login", "the revoked admin's console session lives on")
            let audit = try await admin.send("GET", "/admin/audit")
            #expect(audit.text.contains("user.role") && audit.text.contains("203.0.113.7"))
            // The log is never changed, whoever asks the database.
            await #expect(throws: PostgresError.self) {
                try await app.database.pool.withConnection { try $0.execute("UPDATE admin_audit SET actor = 'someone else'") }
            }
        }
    }

    /// The forms the browser test does not press: each changes what it says, and is audited.
    @Test func everyOtherFormDoesWhatItSays() async throws {
        try await withTestApp { app async throws in
            _ = try await account(app, "ops@console.test", admin: true)
            let member = try await account(app, "member@console.test", admin: false)
            var admin = Browser(app: app)
            _ = try await admin.signIn("ops@console.test", "console-password-1")
            func post(_ path: String, _ form: [(String, String)] = []) async throws -> TestResponse {
                _ = try await admin.send("GET", "/admin")
                return try await admin.send("POST", path, form: [("csrf", admin.csrf)] + form)
            }
            func value(_ sql: SQL) async throws -> String? {
                try await app.database.pool.withConnection { try $0.query(sql).first?.decode(0, as: String?.self) ?? nil }
            }

            let influencer = try await app.influencer("edit.kim")
            #expect(try await post("/admin/influencers/\(influencer)", [("full_name", "새 이름"), ("followers_count", "30000"), ("biography", "")]).status == 303)
            #expect(try await value("SELECT full_name || ' ' || followers_count || ' ' || coalesce(biography, '-') FROM influencers WHERE id = \(influencer)")
                    == "새 이름 30000 -")

            let (_, requester) = try await app.user()
            for name in ["reject.one", "retry.one"] {
                #expect(try await app.send("POST", "/v1/influencer-requests", json: ["instagram_username": name], token: requester).status == 202)
            }
            let rejectID = try #require(try await value("SELECT id::text FROM influencer_requests WHERE username = 'reject.one'"))
            #expect(try await post("/admin/requests/\(rejectID)/reject", [("reason", "private_account")]).status == 303)
            #expect(try await value("SELECT status || ' ' || reason FROM influencer_requests WHERE id = \(Int(rejectID)!)") == "failed private_account")
            #expect(try await post("/admin/requests/\(rejectID)/retry").status == 303)
            #expect(try await value("SELECT status FROM influencer_requests WHERE id = \(Int(rejectID)!)") == "processing")

            #expect(try await post("/admin/users/\(member.uuidString)/sign-out").status == 303)
            let wrong = try await post("/admin/users/\(member.uuidString)/delete", [("confirm", "yes"), ("password", "not-mine")])
            let kept = try await value("SELECT id::text FROM users WHERE id = \(member)")
            #expect(wrong.status == 400 && kept != nil, "\(wrong.status)")
            #expect(try await post("/admin/users/\(member.uuidString)/delete", [("confirm", "yes"), ("password", "console-password-1")]).status == 303)
            #expect(try await value("SELECT id::text FROM users WHERE id = \(member)") == nil)

            let actions = try await PostgresConsoleStore(pool: app.database.pool).audit(AuditQuery()).map(\.action)
            #expect(actions == ["user.delete", "user.sign_out", "influencer_request.retry", "influencer_request.reject", "influencer.edit"], "\(actions)")
        }
    }
}

