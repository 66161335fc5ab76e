import Foundation
import HTTPServer
import HTTPTestSupport
import Synchronization
import Testing
import Workers

/// The libmicrohttpd transport over real sockets on loopback.
@Suite struct EngineTests {
    @Test func answersJSONWithRequestIDsAndAnAccessLogLine() async throws {
        let harness = try EngineHarness()
        let generated = try await RawHTTPClient.request("GET", "/hello", port: harness.port)
        let echoed = try await RawHTTPClient.request("GET", "/hello", port: harness.port, headers: [("X-Request-Id", "client-abc")])

        #expect(generated.status == 200)
        #expect(generated.header("content-type") == "application/json; charset=utf-8")
        #expect(String(decoding: generated.body, as: UTF8.self) == #"{"hello":"세계"}"#)
        #expect(generated.header("x-request-id")?.count == 32)
        #expect(echoed.header("x-request-id") == "client-abc")

        await harness.stop()
        let lines = harness.logs.entries(message: "request")
        #expect(lines.count == 2)
        let line = try #require(lines.first { $0["request_id"] as? String == "client-abc" })
        #expect(line["method"] as? String == "GET")
        #expect(line["path"] as? String == "/hello")
        #expect(line["status"] as? Int == 200)
        #expect(line["duration_ms"] is Double || line["duration_ms"] is Int)
    }

    @Test func routesWithoutIOAnswerOnTheEngineThreadAndTheRestOnTasks() async throws {
        let harness = try EngineHarness()
        let immediate = try await RawHTTPClient.request("GET", "/thread", port: harness.port, headers: [("X-Request-Id", "probe-1")])
        let async = try await RawHTTPClient.request("GET", "/thread-async", port: harness.port)
        let missing = try await RawHTTPClient.request("GET", "/nowhere", port: harness.port)

        #expect(try immediate.jsonObject()["thread"] as? String == "MHD-worker")
        #expect(immediate.header("x-request-id") == "probe-1")
        #expect(try async.jsonObject()["thread"] as? String != "MHD-worker")
        #expect(missing.status == 404)
        #expect(try missing.jsonObject()["error"] as? String == "not_found")
        await harness.stop()
        #expect(harness.logs.entries(message: "request").count == 3, "immediate answers are logged like the rest")
    }

    @Test func headAnswersTheGetHeadersWithoutABody() async throws {
        let harness = try EngineHarness()
        let response = try await RawHTTPClient.request("HEAD", "/hello", port: harness.port)

        #expect(response.status == 200)
        #expect(response.header("content-length") == String(#"{"hello":"세계"}"#.utf8.count))
        #expect(response.body.isEmpty)
        await harness.stop()
    }

    @Test func queryParametersArriveDecoded() async throws {
        let harness = try EngineHarness()
        let response = try await RawHTTPClient.request("GET", "/query?search=%ED%81%AC%EB%A6%BC&page=2", port: harness.port)

        #expect(try response.jsonObject() as? [String: String] == ["search": "크림", "page": "2"])
        await harness.stop()
    }

    @Test func bodiesWithinTheLimitArriveWhole() async throws {
        let harness = try EngineHarness { $0.maxBodyBytes = 4096 }
        let response = try await RawHTTPClient.request("POST", "/echo", port: harness.port, body: Data(repeating: 65, count: 4096))

        #expect(response.status == 200)
        #expect(try response.jsonObject()["bytes"] as? Int == 4096)
        await harness.stop()
    }

    @Test func aBodyOneByteOverTheLimitAnswers413() async throws {
        let harness = try EngineHarness { $0.maxBodyBytes = 4096 }
        let response = try await RawHTTPClient.request("POST", "/echo", port: harness.port, body: Data(repeating: 65, count: 4097))

        #expect(response.status == 413)
        #expect(try response.jsonObject()["error"] as? String == "body_too_large")
        #expect(try await RawHTTPClient.request("GET", "/hello", port: harness.port).status == 200)
        await harness.stop()
    }

    @Test func aHugeDeclaredBodyIsRefusedBeforeItIsRead() async throws {
        let harness = try EngineHarness { $0.maxBodyBytes = 4096 }
        // Only the head is sent: the answer must not wait for 100 MB that never comes.
        let head = Data("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n".utf8)
        let response = try #require(try await RawHTTPClient.exchange(head, port: harness.port, timeoutSeconds: 5))

        #expect(response.status == 413)
        #expect(try await RawHTTPClient.request("GET", "/hello", port: harness.port).status == 200)
        await harness.stop()
    }

    @Test func aChunkedBodyThatGrowsPastTheLimitAnswers413() async throws {
        let harness = try EngineHarness { $0.maxBodyBytes = 4096 }
        var raw = Data("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<4 {
            raw += Data("800\r\n".utf8) + Data(repeating: 66, count: 0x800) + Data("\r\n".utf8)
        }
        raw += Data("0\r\n\r\n".utf8)

        let response = try #require(try await RawHTTPClient.exchange(raw, port: harness.port))

        #expect(response.status == 413)
        #expect(try response.jsonObject()["error"] as? String == "body_too_large")
        await harness.stop()
    }

    @Test func oversizedHeadersAnswer431AndHugeOnesAreStillRejected() async throws {
        let harness = try EngineHarness { $0.maxHeaderBytes = 4096 }
        let justOver = try await RawHTTPClient.request("GET", "/hello", port: harness.port, headers: [("X-Big", String(repeating: "a", count: 4200))])
        #expect(justOver.status == 431)
        #expect(try justOver.jsonObject()["error"] as? String == "headers_too_large")

        // Far past the engine's own buffer: the engine answers, the process survives.
        let huge = try await RawHTTPClient.exchange(Data("GET /hello HTTP/1.1\r\nHost: x\r\nX-Huge: \(String(repeating: "b", count: 1 << 20))\r\n\r\n".utf8), port: harness.port)
        if let huge { #expect((400..<500).contains(huge.status)) }
        #expect(try await RawHTTPClient.request("GET", "/hello", port: harness.port).status == 200)
        await harness.stop()
    }

    @Test func anOverlongURLAnswers414() async throws {
        let harness = try EngineHarness { $0.maxURLBytes = 1024 }
        let response = try await RawHTTPClient.request("GET", "/query?q=" + String(repeating: "z", count: 2000), port: harness.port)

        #expect(response.status == 414)
        #expect(try response.jsonObject()["error"] as? String == "uri_too_long")
        await harness.stop()
    }

    @Test func garbageBytesGet4xxAndTheServerKeepsServing() async throws {
        let harness = try EngineHarness()
        let inputs: [Data] = [
            Data([0x00, 0x01, 0x02, 0xFF, 0xFE, 0x0D, 0x0A, 0x0D, 0x0A]),
            Data("NOT-HTTP\r\n\r\n".utf8),
            Data("GET / HTTP/9.9\r\n\r\n".utf8),
            Data("GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
            Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
        ]
        for input in inputs {
            if let response = try await RawHTTPClient.exchange(input, port: harness.port, timeoutSeconds: 3) {
                #expect((400..<500).contains(response.status) || response.status == 505, "status \(response.status) for \(input.prefix(16).map { $0 })")
            }
        }
        #expect(try await RawHTTPClient.request("GET", "/hello", port: harness.port).status == 200)
        await harness.stop()
    }

    @Test func shutdownLetsAnInFlightRequestFinish() async throws {
        let harness = try EngineHarness(slowHandlerDelay: .milliseconds(600))
        let port = harness.port
        async let slow = RawHTTPClient.request("GET", "/slow", port: port)
        try await waitUntil { harness.server.inFlightCount == 1 }

        await harness.server.shutdown(gracePeriod: .seconds(5))

        let response = try await slow
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"slow":true}"#)
        #expect(harness.logs.entries(message: "shutdown deadline passed; answered in-flight requests with 503").isEmpty)
        // Nothing of this server answers any more. The port itself may already belong to a
        // concurrent test's new server (a connect then succeeds), so what is checked is
        // that this server logged no request for the probe.
        _ = try? await RawHTTPClient.request("GET", "/after-shutdown", port: port)
        #expect(harness.logs.entries(message: "request").allSatisfy { $0["path"] as? String != "/after-shutdown" })
    }

    @Test func requestsStillRunningAtTheDeadlineGet503() async throws {
        let harness = try EngineHarness(slowHandlerDelay: .seconds(30))
        async let slow = RawHTTPClient.request("GET", "/slow", port: harness.port)
        try await waitUntil { harness.server.inFlightCount == 1 }

        await harness.server.shutdown(gracePeriod: .milliseconds(200))

        let response = try await slow
        #expect(response.status == 503)
        #expect(try response.jsonObject()["error"] as? String == "shutting_down")
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestEnvironmentError("condition not reached in 20 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Connection-level limits of the transport.
@Suite struct ConnectionLimitTests {
    @Test func idleConnectionsAreClosedAfterTheTimeout() async throws {
        let harness = try EngineHarness { $0.idleTimeoutSeconds = 1 }
        let port = harness.port
        let closedByServer = try await BlockingWork.run {
            let descriptor = try RawHTTPClient.connect(port: port, timeoutSeconds: 5)
            defer { close(descriptor) }
            var byte: UInt8 = 0
            let started = Date()
            let received = recv(descriptor, &byte, 1, 0)
            return received == 0 && Date().timeIntervalSince(started) < 4
        }
        #expect(closedByServer)
        await harness.stop()
    }

    @Test func connectionsBeyondTheLimitAreRefusedAndTheServerRecovers() async throws {
        // One engine thread: libmicrohttpd divides the limit among its threads, and which
        // thread accepts a connection is a race (a loaded run saw the third one answered).
        // Held connections send nothing: long deadlines, or a loaded run's 10 s header
        // timeout closes them and frees a slot for the third (seen: the third answered).
        let harness = try EngineHarness { $0.maxConnections = 2; $0.threads = 1; $0.headerTimeoutSeconds = 600; $0.idleTimeoutSeconds = 600 }
        let port = harness.port
        let held = try (0..<2).map { _ in try RawHTTPClient.connect(port: port) }
        // Both held connections accepted before the third is tried (a loaded run saw the
        // third answered: the engine had not accepted the first two after 500 ms).
        let accepted = ContinuousClock.now + .seconds(20)
        while harness.server.connectionCount < 2 && ContinuousClock.now < accepted { try await Task.sleep(for: .milliseconds(10)) }
        #expect(harness.server.connectionCount == 2)

        let refused = try await RawHTTPClient.exchange(Data("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), port: port, timeoutSeconds: 3)
        #expect(refused == nil)

        held.forEach { close($0) }
        // The engine frees the slots once it sees the closes; give it up to two seconds.
        var recovered = false
        for _ in 0..<40 where !recovered {
            recovered = (try? await RawHTTPClient.request("GET", "/hello", port: port).status) == 200
            if !recovered { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(recovered)
        await harness.stop()
    }
}

/// One client address cannot take every connection.
@Suite struct PerAddressConnectionTests {
    @Test func twelveHundredHalfSentRequestsFromOneAddressLeaveRoomForAnother() async throws {
        let harness = try EngineHarness()
        let port = harness.port
        // Each connection sends half a request head and then nothing.
        let held = try await BlockingWork.run {
            var held: [Int32] = []
            for _ in 0..<1_200 {
                guard let descriptor = try? RawHTTPClient.connect(port: port, from: "127.0.0.1", timeoutSeconds: 2) else { continue }
                _ = "GET /hello HTTP/1.1\r\nHost: x\r\n".withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                held.append(descriptor)
            }
            return held
        }
        defer { held.forEach { close($0) } }
        try await Task.sleep(for: .milliseconds(200))
        let other = try await BlockingWork.run {
            let descriptor = try RawHTTPClient.connect(port: port, from: "127.0.0.2", timeoutSeconds: 5)
            defer { close(descriptor) }
            let request = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            _ = request.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        }
        #expect(other.hasPrefix("HTTP/1.1 200"), "another address got: \(other.prefix(80))")
        await harness.stop()
    }
}

/// Slow clients: a head or body that trickles in, never idle long enough for the idle
/// timeout, is cut off when its total time runs out.
@Suite struct RequestDeadlineTests {
    /// Sends `head`, then one byte of `trickle` every 300 ms; the seconds until the server
    /// closed the connection, or `nil` if it was still open after `limit` seconds.
    private func secondsUntilClosed(port: Int, head: String, trickle: String, limit: Double) async throws -> Double? {
        try await BlockingWork.run {
            let descriptor = try RawHTTPClient.connect(port: port, timeoutSeconds: 1)
            defer { close(descriptor) }
            let started = Date()
            _ = head.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var bytes = Array(trickle.utf8)
            while Date().timeIntervalSince(started) < limit {
                if !bytes.isEmpty {
                    let byte = bytes.removeFirst()
                    if [byte].withUnsafeBytes({ send(descriptor, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }) < 0 { return Date().timeIntervalSince(started) }
                }
                var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&pollDescriptor, 1, 300) > 0 {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    if recv(descriptor, &buffer, buffer.count, 0) <= 0 { return Date().timeIntervalSince(started) }
                }
            }
            return nil
        }
    }

    @Test(arguments: [
        ("head", "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: "),
        ("body", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"),
    ])
    func aTricklingRequestIsClosedWhenItsTimeRunsOut(part: String, head: String) async throws {
        let harness = try EngineHarness { part == "head" ? ($0.headerTimeoutSeconds = 1) : ($0.bodyTimeoutSeconds = 1) }
        // The trickle would last 27 s and keeps the connection from idling out: closed before
        // 20 s is the 1 s deadline at work. (No tighter bound: a test run loaded by a fuzzer
        // and a browser closed it at 5.6 s; a passing run takes about 1.3 s either way.)
        let closedAfter = try await secondsUntilClosed(port: harness.port, head: head, trickle: String(repeating: "a", count: 90), limit: 20)
        #expect(closedAfter != nil, "a \(part) trickling a byte every 300 ms was still open after 20 s")
        await harness.stop()
    }

    @Test func keepAliveRequestsWithinTheirTimeAreServed() async throws {
        // Head limit 4 s, idle 4.5 s between requests: idle time is not head time. (With a
        // 1 s limit, a loaded test run once took over a second to read a whole head; with
        // 2 s, a run loaded by four busy loops took over two for the first.)
        let harness = try EngineHarness { $0.headerTimeoutSeconds = 4 }
        let port = harness.port
        let answers = try await BlockingWork.run {
            let descriptor = try RawHTTPClient.connect(port: port, timeoutSeconds: 10)
            defer { close(descriptor) }
            var answers = 0
            for index in 0..<3 {
                if index > 0 { usleep(4_500_000) } // idle longer than the head timeout, within the idle timeout
                let request = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
                _ = request.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                if recv(descriptor, &buffer, buffer.count, 0) > 0 { answers += 1 }
            }
            return answers
        }
        #expect(answers == 3)
        await harness.stop()
    }
}
