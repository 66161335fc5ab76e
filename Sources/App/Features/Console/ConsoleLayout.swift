import Domain
import Foundation

/// The console's page chrome and the small pieces every page is built of. No script: every
/// action is a form, so each page works with the keyboard and without JavaScript.
enum ConsoleLayout {
    static let sections: [(path: String, title: String)] = [
        ("/admin", "Overview"), ("/admin/requests", "Requests"), ("/admin/posts", "Posts"), ("/admin/influencers", "Influencers"),
        ("/admin/users", "Users"), ("/admin/keys", "API keys"), ("/admin/audit", "Audit log"),
    ]

    static func page(_ title: String, session: ConsoleSession?, notice: String? = nil, error: String? = nil, _ body: HTML) -> HTML {
        let navigation: HTML = session.map { session in
            let links = sections.map { section -> HTML in "<li><a href=\"\(section.path)\">\(section.title)</a></li>" }
            return """
                <nav aria-label="Sections"><ul>\(links)</ul>
                <form method="post" action="/admin/logout" class="inline">\(csrf(session))
                <span class="who">\(session.email)</span> <button type="submit">Sign out</button></form></nav>
                """
        } ?? ""
        let message: HTML = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" } ?? ""
        let problem: HTML = error.map { "<p class=\"error\" role=\"alert\">\($0)</p>" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · 09Market console</title><link rel="stylesheet" href="/admin/console.css"></head>
            <body><a class="skip" href="#main">Skip to content</a>
            <header><p class="brand">09Market console</p>\(navigation)</header>
            <main id="main"><h1>\(title)</h1>\(message)\(problem)\(body)</main></body></html>
            """
    }

    /// The hidden CSRF field of `session`'s forms.
    static func csrf(_ session: ConsoleSession) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrfToken)\">"
    }

    /// A form of one button posting to `action`.
    static func button(_ label: String, action: String, session: ConsoleSession, danger: Bool = false, _ fields: HTML = "") -> HTML {
        """
        <form method="post" action="\(action)" class="inline">\(csrf(session))\(fields)<button type="submit"\(danger ? " class=\"danger\"" : "")>\(label)</button></form>
        """
    }

    /// A labelled text field.
    static func field(_ label: String, name: String, value: String?, type: String = "text", required: Bool = false) -> HTML {
        """
        <p><label for="f-\(name)">\(label)</label><input id="f-\(name)" name="\(name)" type="\(type)" value="\(value)"\(required ? " required" : "")></p>
        """
    }

    /// A labelled select.
    static func select(_ label: String, name: String, options: [(value: String, label: String)], selected: String?) -> HTML {
        let items = options.map { option -> HTML in
            "<option value=\"\(option.value)\"\(option.value == (selected ?? "") ? " selected" : "")>\(option.label)</option>"
        }
        return "<p><label for=\"f-\(name)\">\(label)</label><select id=\"f-\(name)\" name=\"\(name)\">\(items)</select></p>"
    }

    /// A table with a caption for screen readers, column headers and rows of cells.
    static func table(_ caption: String, headers: [String], rows: [[HTML]]) -> HTML {
        let head = headers.map { header -> HTML in "<th scope=\"col\">\(header)</th>" }
        let body = rows.map { row -> HTML in "<tr>\(row.map { cell -> HTML in "<td>\(cell)</td>" })</tr>" }
        let empty: HTML = rows.isEmpty ? "<p>Nothing here.</p>" : ""
        return "<div class=\"scroll\"><table><caption>\(caption)</caption><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>\(empty)"
    }

    /// Previous and next links over `query`'s other parameters.
    static func pager(_ path: String, page: Int, hasNext: Bool, query: [String: String]) -> HTML {
        func link(_ target: Int, _ label: String) -> HTML {
            var parameters = query
            parameters["page"] = String(target)
            let text = parameters.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            return "<a href=\"\(path)?\(text)\">\(label)</a>"
        }
        let previous: HTML = page > 1 ? link(page - 1, "← Previous") : ""
        let next: HTML = hasNext ? link(page + 1, "Next →") : ""
        return "<p class=\"pager\">\(previous) <span>Page \(page)</span> \(next)</p>"
    }

    static func date(_ date: Date?) -> String {
        guard let date else { return "—" }
        return date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 9 * 3600)!).year().month().day()
            .time(includingFractionalSeconds: false).timeZone(separator: .omitted))
    }
}
