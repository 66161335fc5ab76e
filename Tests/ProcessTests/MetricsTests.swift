import App
import Foundation
import HTTPServer
import ProcessSupport
import TestSupport
import Testing

/// `market09 serve` counts what it answers by route template and serves the counts, the
/// pool and the process in Prometheus' text format.
@Suite struct MetricsTests {
    /// A sample line: a metric name, optional labels, a number.
    private static var sampleLine: Regex<(Substring, Substring?, Substring?, Substring?, Substring, Substring?)> { /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? (-?[0-9.]+(e[-+]?[0-9]+)?|NaN|[+-]Inf)$/ }

    @Test func requestsAreCountedByRouteTemplateOnAPortOfTheirOwn() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-metrics-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A read replica nobody answers at: its lag is unknown (NaN), its pool still counted.
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                  "DATABASE_READ_URLS": "postgresql://nobody@127.0.0.1:9/none"],
                                         directory: directory)
        let port = try await server.waitUntilListening()
        let metricsPort = try #require(try await server.waitForLine(message: "metrics listening")["port"] as? Int)

        for _ in 0..<2 { #expect(try await RawHTTPClient.request("GET", "/v1/categories", port: port).status == 200) }
        #expect(try await RawHTTPClient.request("GET", "/v1/posts/123456789", port: port).status == 401)
        #expect(try await RawHTTPClient.request("GET", "/nowhere-98765", port: port).status == 404)
        // Only on its own port.
        #expect(try await RawHTTPClient.request("GET", "/metrics", port: port).status == 404)

        let expected = [
            #"market09_http_requests_total{method="GET",route="/v1/categories",status="200"} 2"#,
            #"market09_http_requests_total{method="GET",route="/v1/posts/{id}",status="401"} 1"#,
            #"market09_http_requests_total{method="GET",route="unmatched",status="404"} 2"#,
            #"market09_http_errors_total{code="missing_token"} 1"#,
            #"market09_http_errors_total{code="not_found"} 2"#,
            #"market09_http_request_duration_seconds_count{method="GET",route="/v1/categories"} 2"#,
            #"market09_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/categories"} 2"#,
            "market09_db_pool_connections 4",
            #"market09_build_info{version="0.1.0"} 1"#,
            #"market09_replica_lag_seconds{replica="0"} NaN"#,
            #"market09_replica_healthy{replica="0"} 0"#,
            #"market09_replica_pool_connections{replica="0"} 4"#,
            #"market09_replica_pool_queued{replica="0"} 0"#,
        ]
        // The engine counts a request once its answer is written: poll briefly.
        var text = ""
        let deadline = ContinuousClock.now + .seconds(5)
        repeat {
            let scrape = try await RawHTTPClient.request("GET", "/metrics", port: metricsPort)
            #expect(scrape.status == 200 && scrape.header("content-type") == "text/plain; version=0.0.4; charset=utf-8")
            text = String(decoding: scrape.body, as: UTF8.self)
            if expected.allSatisfy({ text.contains($0 + "\n") }) { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        for line in expected { #expect(text.contains(line + "\n"), "\(line) missing from:\n\(text)") }

        // Raw paths never become labels; every line is a comment or a well-formed sample.
        #expect(!text.contains("123456789") && !text.contains("98765"))
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(String(line).wholeMatch(of: Self.sampleLine) != nil, "malformed: \(line)")
        }
        for name in ["market09_http_requests_in_flight", "market09_db_pool_busy", "market09_db_pool_queued", "market09_db_pool_wait_seconds_count",
                     "market09_db_statement_timeouts_total", "market09_revocation_poll_age_seconds", "process_resident_memory_bytes",
                     "process_cpu_seconds_total", #"market09_job_runs_total{job="feed_maintenance"}"#] {
            #expect(text.contains("\n" + name + " ") || text.contains("\n" + name + "{"), "\(name) missing")
        }

        #expect(try await server.stop(signal: SIGTERM) == 0)
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Each request's line says who asked (behind a trusted proxy: the address it names),
    /// which route, as which user, with what client software, and how much was sent.
    @Test func accessLogLinesSayWhoAskedWhatAndHowMuchWasSent() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-metrics-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                  "MIGRATE_ON_START": "false", "TRUSTED_PROXIES": "127.0.0.1"],
                                         directory: directory)
        let port = try await server.waitUntilListening()
        let session = try await RawHTTPClient.request("POST", "/v1/auth/anonymous", port: port).jsonObject()
        let token = try #require(session["access_token"] as? String)
        let user = try #require((session["user"] as? [String: any Sendable])?["id"] as? String)
        let me = try await RawHTTPClient.request("GET", "/v1/posts?limit=1", port: port, headers: [
            ("Authorization", "Bearer " + token), ("X-Forwarded-For", "203.0.113.7"), ("User-Agent", "Market09/1.4 " + String(repeating: "x", count: 1_000)),
        ])
        #expect(me.status == 200)
        #expect(try await RawHTTPClient.request("GET", "/v1/posts/42", port: port).status == 401)
        #expect(try await server.stop(signal: SIGTERM) == 0)

        let lines = server.process.output().split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["message"] as? String == "request" }
        let meLine = try #require(lines.first { $0["path"] as? String == "/v1/posts" })
        #expect(meLine["route"] as? String == "/v1/posts")
        #expect(meLine["client"] as? String == "203.0.113.7")
        #expect(meLine["user"] as? String == user)
        #expect((meLine["user_agent"] as? String)?.hasPrefix("Market09/1.4 xxx") == true && (meLine["user_agent"] as? String)?.utf8.count == 256)
        #expect(meLine["bytes"] as? Int == me.body.count)
        let refused = try #require(lines.first { $0["path"] as? String == "/v1/posts/42" })
        #expect(refused["route"] as? String == "/v1/posts/{id}" && refused["client"] as? String == "127.0.0.1" && refused["user"] == nil)
        #expect(refused["level"] as? String == "info")
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func metricsAreNeverOnTheAPIPortAndATokenGuardsTheirOwn() async throws {
        let database = try await TestDatabase.migrated()
        let token = "scrape-token-0123456789"
        for (environment, scrape) in [([String: String](), 200), (["METRICS_TOKEN": token], 401), (["METRICS": "false"], 0)] {
            let directory = "/tmp/m09-metrics-" + UUID().uuidString.prefix(8).lowercased()
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                      "MIGRATE_ON_START": "false"].merging(environment) { $1 }, directory: directory)
            let port = try await server.waitUntilListening()
            #expect(try await RawHTTPClient.request("GET", "/metrics", port: port).status == 404, "\(environment): /metrics on the API port")
            if scrape == 0 {
                #expect(!server.process.output().contains("metrics listening"))
            } else {
                let line = try await server.waitForLine(message: "metrics listening")
                #expect(line["host"] as? String == "127.0.0.1")
                let metricsPort = try #require(line["port"] as? Int)
                let anonymous = try await RawHTTPClient.request("GET", "/metrics", port: metricsPort)
                #expect(anonymous.status == scrape, "\(environment)")
                if scrape == 401 {
                    #expect(try await RawHTTPClient.request("GET", "/metrics", port: metricsPort, headers: [("Authorization", "Bearer wrong-token-0123456789")]).status == 401)
                    #expect(try await RawHTTPClient.request("GET", "/metrics", port: metricsPort, headers: [("Authorization", "Bearer " + token)]).status == 200)
                }
            }
            #expect(try await server.stop(signal: SIGTERM) == 0)
            try? FileManager.default.removeItem(atPath: directory)
        }
        await database.drop()
    }

    /// The attack: no account, invented methods. Before, 600 requests with 4 KB methods made
    /// 604 method labels, a 40 MB page and a 5.9 s rendering on an engine thread.
    @Test func inventedMethodsAre501AndNeverBecomeLabelsOrLogLines() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-metrics-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try Market09Process(["serve"], environment: ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0",
                                                                  "MIGRATE_ON_START": "false", "METRICS_PORT": "0"], directory: directory)
        let port = try await server.waitUntilListening()
        let metricsPort = try #require(try await server.waitForLine(message: "metrics listening")["port"] as? Int)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for round in 0..<100 {
            let length = round % 2 == 0 ? 4_000 : 12
            let method = String((0..<length).map { _ in letters.randomElement()! })
            for path in ["/health", "/v1/posts", "/nowhere-\(round)"] {
                let answer = try await RawHTTPClient.request(method, path, port: port)
                let code = try answer.jsonObject()["error"] as? String
                #expect(answer.status == 501 && code == "method_not_implemented", "\(answer.status)")
            }
        }
        #expect(try await RawHTTPClient.request("GET", "/health", port: port).status == 200)
        let scrape = try await RawHTTPClient.request("GET", "/metrics", port: metricsPort)
        let text = String(decoding: scrape.body, as: UTF8.self)
        #expect(scrape.status == 200 && scrape.body.count < 64 << 10, "a scrape of \(scrape.body.count) bytes")
        let methods = Set(text.matches(of: /method="([^"]*)"/).map { String($0.1) })
        #expect(methods.isSubset(of: HTTPMethod.known.union(["other"])), "\(methods.prefix(5))")
        // A registered method no route serves is a 405 with Allow, as RFC 9110 asks.
        for registered in ["TRACE", "QUERY", "PROPFIND"] {
            let answer = try await RawHTTPClient.request(registered, "/v1/posts", port: port)
            #expect(answer.status == 405 && answer.header("Allow")?.contains("GET") == true, "\(registered): \(answer.status)")
        }
        #expect(text.contains(#"market09_http_requests_total{method="other",route="unmatched",status="501"} 300"#))
        #expect(!text.contains("nowhere"))
        // The access log names the method `other`, never the 4 KB text.
        #expect(try await server.stop(signal: SIGTERM) == 0)
        let log = server.process.output()
        #expect(!log.contains(String(repeating: "A", count: 40)) && log.contains(#""method":"other""#))
        // A 5xx is the server's failure: logged at error, so an alert can watch the level.
        let refused = log.split(separator: "\n").filter { $0.contains(#""status":501"#) }
        #expect(refused.count == 300 && refused.allSatisfy { $0.contains(#""level":"error""#) }, "\(refused.first ?? "")")
        await database.drop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whatever labels the server is given, each family keeps at most `maxSeries` series.
    @Test func everyFamilyIsBoundedWhateverItIsGiven() {
        let metrics = Metrics()
        for index in 0..<3_000 {
            metrics.recordRequest(route: "/route-\(index)", method: "GET", status: 200, seconds: 0.001)
            metrics.increment(.errors, "code_\(index)")
            metrics.increment(.jobRuns, "job with spaces \(index)")
        }
        let text = metrics.render()
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let requests = samples.filter { $0.hasPrefix("market09_http_requests_total{") }
        #expect(requests.count <= 1_001)
        #expect(requests.contains { $0.contains(#"route="other""#) })
        #expect(samples.filter { $0.hasPrefix("market09_http_errors_total{") }.count <= 3_001)
        #expect(!text.contains("job with spaces"), "label values are names without spaces")
        #expect(text.utf8.count < 2 << 20)
    }
}
