import Foundation
import Persistence
import Synchronization
import TestSupport
import Testing
import Workers

/// What a stranger, or one account, can do with uploads: nothing is written for a refused
/// request, one account's rate and daily bytes are bounded, and the store keeps its
/// reserve. Through the real engine, against PostgreSQL.
@Suite struct UploadAbuseTests {
    private static let boundary = "multipart/form-data; boundary=b0undary-Xy"

    /// `count` different PNG files of `bytes` each.
    private static func images(_ count: Int, bytes: Int) -> [Data] {
        (0..<count).map { ImageFixtures.png(width: $0 + 1, height: 1, filler: bytes - 33) }
    }

    private func upload(_ image: Data, port: Int, token: String?, path: String = "/v1/uploads",
                        extra: [(String, String)] = []) async throws -> RawHTTPResponse {
        var headers = [("Content-Type", Self.boundary)] + extra
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await RawHTTPClient.request("POST", path, port: port, headers: headers,
                                               body: ImageFixtures.multipart([("file", "a.png", nil, image)]))
    }

    /// Before: with no token, 6 MiB were sent and a 6 MiB file appeared in
    /// `media/incoming/` before the handler looked at the token.
    @Test func aRefusedUploadIsAnsweredFromItsHeadAndWritesNothing() async throws {
        try await withTestApp { app async throws in
            let (_, anonymous) = try await app.user(anonymous: true)
            let incoming = app.dependencies.mediaSettings.directory + "/incoming"
            try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
            try await app.serving { port in
                let cases: [(String, [(String, String)], Int, String)] = [
                    ("/v1/uploads", [], 401, "missing_token"),
                    ("/v1/uploads", [("Authorization", "Bearer \(anonymous)")], 403, "login_required"),
                    ("/v1/uploads", [("Authorization", "Bearer not-a-token")], 401, "invalid_token"),
                    ("/functions/v1/upload", [("apikey", TestApp.anonKey)], 401, "no_authorization"),
                    ("/functions/v1/upload", [], 401, "invalid_api_key"),
                ]
                for (path, headers, status, _) in cases {
                    let answer = try await Self.sendHeadThenBody(path: path, headers: headers, bodyBytes: 6 << 20, port: port, watching: incoming)
                    #expect(answer.status == status, "\(path) \(headers): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                    #expect(answer.answeredBeforeTheBody, "\(path): the refusal waited for the body")
                    #expect(answer.largestSpool == 0, "\(path): \(answer.largestSpool) bytes were written to incoming/")
                    #expect(answer.header("Connection")?.lowercased() == "close")
                }
            }
        }
    }

    @Test func oneAccountsUploadsAreBoundedPerHourAndPerDay() async throws {
        let media = TestApp.media { limits in
            limits.perHour = 4
            limits.bytesPerDay = 3 << 20
        }
        try await withTestApp(media: media) { app async throws in
            let (_, hourly) = try await app.user()
            let (_, daily) = try await app.user()
            try await app.serving { port in
                let small = Self.images(6, bytes: 2_000)
                for (index, image) in small.enumerated() {
                    let answer = try await upload(image, port: port, token: hourly)
                    if index < 4 {
                        #expect(answer.status == 201, "upload \(index): \(answer.status)")
                    } else {
                        let code = try answer.jsonObject()["error"] as? String
                        #expect(answer.status == 429 && code == "upload_rate_limited")
                        let wait = try #require(answer.header("Retry-After").flatMap(Int.init))
                        #expect((3_000...3_600).contains(wait))
                    }
                }
                // 1 MiB files: the third one would pass 3 MiB in the day.
                let large = Self.images(3, bytes: 1 << 20)
                let statuses = try await large.asyncMap { try await upload($0, port: port, token: daily) }
                #expect(statuses.prefix(2).allSatisfy { $0.status == 201 })
                let code = try statuses[2].jsonObject()["error"] as? String
                #expect(statuses[2].status == 429 && code == "upload_quota_exceeded")
                #expect(statuses[2].header("Retry-After").flatMap(Int.init).map { $0 > 80_000 } == true)
                // The Supabase surface draws on the same budget.
                let compatible = try await upload(large[2], port: port, token: daily, path: "/functions/v1/upload", extra: [("apikey", TestApp.anonKey)])
                #expect(compatible.status == 429, "\(compatible.status)")
            }
        }
    }

    @Test func theStoreKeepsItsReserveAndBoundsWhatNothingRefersTo() async throws {
        let full = TestApp.media { $0.minimumFreeBytes = 1 << 50 }
        try await withTestApp(media: full) { app async throws in
            let (_, token) = try await app.user()
            let incoming = app.dependencies.mediaSettings.directory + "/incoming"
            try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
            try await app.serving { port in
                let answer = try await Self.sendHeadThenBody(path: "/v1/uploads", headers: [("Authorization", "Bearer \(token)")],
                                                             bodyBytes: 2 << 20, port: port, watching: incoming)
                #expect(answer.status == 507 && answer.largestSpool == 0, "\(answer.status), \(answer.largestSpool) bytes spooled")
                #expect((try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? String == "insufficient_storage")
            }
        }
        let capped = TestApp.media { $0.maximumUnreferencedBytes = (5 << 20) / 2 }
        try await withTestApp(media: capped) { app async throws in
            let (_, first) = try await app.user()
            let (_, second) = try await app.user()
            let influencer = try await app.influencer("reserve.kim")
            try await app.serving { port in
                let images = Self.images(3, bytes: 1 << 20)
                #expect(try await upload(images[0], port: port, token: first).status == 201)
                let used = try await upload(images[1], port: port, token: second)
                #expect(used.status == 201)
                // Another account's upload does not fit beside the two nothing refers to.
                #expect(try await upload(images[2], port: port, token: first).status == 507)
                // Once a post refers to one, there is room again.
                let post = try await app.post(influencer: influencer, name: "with image", start: "2026-12-01T00:00:00Z", end: "2026-12-02T00:00:00Z")
                let url = try #require(try used.jsonObject()["url"] as? String)
                try await app.database.pool.withConnection { try $0.execute("UPDATE posts SET display_url = \(url) WHERE id = \(post)") }
                #expect(try await upload(images[2], port: port, token: first).status == 201)
            }
        }
    }

    /// Before: reads shared the two upload threads and their queue of 64, and answered 503
    /// while uploads filled them.
    @Test func mediaIsServedWhileUploadWorkIsQueuedToItsLimit() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            try await app.serving { port in
                let stored = try await upload(ImageFixtures.png(width: 9, height: 9), port: port, token: token)
                let url = try #require(try stored.jsonObject()["url"] as? String)
                let workers = app.dependencies.fileWorkers
                let held = Gate()
                let busy = (0..<66).map { _ in Task { try? await workers.run { held.wait() } } }
                try await Task.sleep(for: .milliseconds(200))
                let read = try await RawHTTPClient.request("GET", String(url.dropFirst("http://127.0.0.1".count)), port: port)
                held.open()
                #expect(read.status == 200, "\(read.status) \(String(decoding: read.body.prefix(200), as: UTF8.self))")
                for task in busy { await task.value }
            }
        }
    }

    /// What a client saw sending a head, then up to `bodyBytes` of body in 64 KB pieces
    /// while watching `incoming` (the spool directory).
    struct Exchange {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: Data
        let answeredBeforeTheBody: Bool
        let largestSpool: Int
        func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
    }

    static func sendHeadThenBody(path: String, headers: [(String, String)], bodyBytes: Int, port: Int, watching incoming: String) async throws -> Exchange {
        try await BlockingWork.run(name: "upload-abuse") {
            let socket = try RawHTTPClient.connect(port: port, timeoutSeconds: 10)
            defer { close(socket) }
            var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(boundary)\r\nContent-Length: \(bodyBytes)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            _ = head.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            func spooled() -> Int {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? []
                return names.compactMap { try? FileManager.default.attributesOfItem(atPath: incoming + "/" + $0)[.size] as? Int }.max() ?? 0
            }
            // Give the server the head alone first: an answer now is one made from the head.
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let answeredEarly = poll(&ready, 1, 10_000) > 0
            var largest = spooled()
            let piece = [UInt8](repeating: 0x42, count: 64 << 10)
            var sent = 0
            while sent < bodyBytes && !answeredEarly {
                let count = send(socket, piece, min(piece.count, bodyBytes - sent), Int32(MSG_NOSIGNAL))
                guard count > 0 else { break }
                sent += count
                if sent % (1 << 20) == 0 { largest = max(largest, spooled()) }
            }
            largest = max(largest, spooled())
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received.append(contentsOf: buffer[0..<count])
                if let end = received.range(of: Data("\r\n\r\n".utf8)),
                   let length = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                    .components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") })
                    .flatMap({ Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }),
                   received.count >= end.upperBound + length { break }
            }
            largest = max(largest, spooled())
            guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { throw TestEnvironmentError("no answer to \(path)") }
            var lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
            let fields = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            return Exchange(status: status, headers: fields, body: Data(received[end.upperBound...]), answeredBeforeTheBody: answeredEarly,
                            largestSpool: largest)
        }
    }
}

/// Holds the threads that wait on it until it is opened.
private final class Gate: Sendable {
    private let opened = Mutex(false)
    func wait() { while !opened.withLock({ $0 }) { usleep(2_000) } }
    func open() { opened.withLock { $0 = true } }
}

extension Array {
    /// Maps in order, awaiting each element.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
