@testable import App
import Domain
import Foundation
import HTTPServer
import Testing

/// The console's pieces that need no I/O: escaping by type, form and cookie parsing, the
/// origin check, the overview's health rows and its chart.
@Suite struct ConsoleRenderingTests {
    @Test func interpolatedTextIsEscapedAndMarkupIsNot() {
        let caption = "<script>alert('x')</script> & \"quoted\""
        let bold: HTML = "<b>\(caption)</b>"
        #expect(bold.text == "<b>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;</b>")
        let outer: HTML = "<p>\(bold)</p>"
        #expect(outer.text == "<p>" + bold.text + "</p>", "markup was escaped twice")
        let attribute: HTML = "<input value=\"\("\" onfocus=\"alert(1)")\">"
        #expect(!attribute.text.contains("\" onfocus"))
        let optional: String? = nil
        let empty: HTML = "[\(optional)]"
        #expect(empty.text == "[]")
    }

    @Test func formsDecodePlusPercentAndRepeatedFields() {
        let form = ConsoleForm(Data("csrf=a%2Bb&name=%ED%81%AC%EB%A6%BC+%EC%84%B8%ED%8A%B8&ids=1&ids=2&bad=%zz&empty=&flag".utf8))
        #expect(form["csrf"] == "a+b" && form["name"] == "크림 세트")
        #expect(form.all("ids") == ["1", "2"])
        #expect(form["bad"] == nil && form["empty"] == nil && form["flag"] == nil && form["missing"] == nil)
        #expect(ConsoleForm(Data([0x61, 0x3D, 0x25])).fields.isEmpty == false && ConsoleForm(Data([0x61, 0x3D, 0x25]))["a"] == nil)
    }

    @Test func cookiesAreReadByNameFromEveryHeader() {
        let request = HTTPRequest(method: "GET", path: "/admin",
                                  headers: HTTPHeaders([("Cookie", "a=1; market09_console=tok"), ("Cookie", "market09_console=second")]))
        #expect(Cookies.value("market09_console", in: request) == "tok" && Cookies.value("a", in: request) == "1")
        #expect(Cookies.value("missing", in: request) == nil)
    }

    @Test func aFormIsOursOnlyWithItsTokenFromThisOrigin() {
        let form = ConsoleForm(Data("csrf=token-1".utf8))
        func request(_ origin: String?) -> HTTPRequest {
            var headers = HTTPHeaders([("Host", "console.example")])
            if let origin { headers.add("Origin", origin) }
            return HTTPRequest(method: "POST", path: "/admin/posts/1/hide", headers: headers)
        }
        #expect(ConsoleSecurity.formIsOurs(form, expected: "token-1", request: request(nil)))
        #expect(ConsoleSecurity.formIsOurs(form, expected: "token-1", request: request("https://console.example")))
        #expect(!ConsoleSecurity.formIsOurs(form, expected: "token-1", request: request("https://evil.example")))
        #expect(!ConsoleSecurity.formIsOurs(form, expected: "token-2", request: request(nil)))
        #expect(!ConsoleSecurity.formIsOurs(ConsoleForm(Data()), expected: "token-1", request: request(nil)))
    }

    @Test func onlyLoopbackFromLoopbackMayGoWithoutTLS() {
        func request(_ host: String) -> HTTPRequest { HTTPRequest(method: "GET", path: "/admin", headers: HTTPHeaders([("Host", host)])) }
        #expect(ConsoleSecurity.isLoopback(request("127.0.0.1:8080"), client: "127.0.0.1"))
        #expect(ConsoleSecurity.isLoopback(request("localhost"), client: "::1"))
        #expect(ConsoleSecurity.isLoopback(request("[::1]:8080"), client: "::1"))
        #expect(!ConsoleSecurity.isLoopback(request("localhost:8080"), client: "203.0.113.7"), "a forged Host from afar")
        #expect(!ConsoleSecurity.isLoopback(request("api.09market.kr"), client: "127.0.0.1"), "behind a proxy on this machine")
        let cookie = ConsoleSecurity(idleTimeout: 600).cookie("market09_console", "abc", secure: true)
        #expect(cookie == "market09_console=abc; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=600; Secure")
        #expect(ConsoleSecurity(idleTimeout: 600).cookie("market09_console", nil, secure: false).contains("Max-Age=0"))
    }

    @Test func theOverviewReadsTheInstancesOwnMetrics() {
        let exposition = """
            # HELP market09_db_pool_connections Connections.
            market09_db_pool_connections 16
            market09_db_pool_busy 3
            market09_replica_lag_seconds{replica="r1"} 0.25
            market09_job_leader 1
            market09_backup_age_seconds 7200
            market09_http_requests_total{route="/v1/posts",method="GET",status="200"} 5
            """
        let rows = ConsoleOverviewPage.health(exposition)
        #expect(rows.map(\.0) == ["Database pool threads", "Busy now", "Replica lag {replica=\"r1\"}", "Runs the background jobs", "Last good backup"])
        #expect(rows.map(\.1) == ["16", "3", "0.25 s", "yes", "2.0 hours ago"])
    }

    @Test func theChartDrawsABarPerBusyHourScaledToTheBusiest() {
        var counts = Array(repeating: 0, count: 168)
        counts[0] = 5
        counts[167] = 10
        let svg = ConsoleOverviewPage.chart(HourlySeries(name: "Likes", start: Date(timeIntervalSince1970: 0), counts: counts)).text
        #expect(svg.components(separatedBy: "<rect").count - 1 == 2)
        #expect(svg.contains("height=\"100\"><title>10</title>") && svg.contains("height=\"50\"><title>5</title>"), "\(svg)")
        #expect(svg.contains("role=\"img\"") && svg.contains("aria-label=\"Likes per hour"))
    }
}
