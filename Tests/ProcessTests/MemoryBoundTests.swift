import Foundation
import ProcessSupport
import TestSupport
import Testing

/// Client input never grows the server's memory: attacker-sized values are refused before
/// they become keys of any in-memory table.
@Suite struct MemoryBoundTests {
    private func residentMegabytes(_ pid: pid_t) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw TestEnvironmentError("no VmRSS for \(pid)") }
        return kilobytes / 1024
    }

    private func signIn(email: String, port: Int) async throws -> Int {
        let body = try JSONSerialization.data(withJSONObject: ["grant_type": "password", "email": email, "password": "wrong-guess"])
        return try await RawHTTPClient.request("POST", "/v1/auth/token", port: port, headers: [("Content-Type", "application/json")], body: body).status
    }

    @Test func failedSignInsWith200KBEmailsLeaveTheResidentSetWhereItWas() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09m-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try Market09Process(["serve"], environment: [
            "DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "s", count: 40), "PORT": "0",
            "RATE_LIMIT_TOKEN_PER_5_MINUTES": "1000000", "PASSWORD_HASH_ITERATIONS": "10000",
        ], directory: directory)
        let port = try await server.waitUntilListening()
        // Warm up the allocator and every code path once with ordinary guesses.
        for index in 0..<20 { _ = try await signIn(email: "warm\(index)@example.com", port: port) }
        let before = try residentMegabytes(server.process.pid)

        let padding = String(repeating: "a", count: 200_000)
        var statuses: [Int: Int] = [:]
        for index in 0..<300 {
            statuses[try await signIn(email: "\(padding)\(index)@example.com", port: port), default: 0] += 1
        }
        let after = try residentMegabytes(server.process.pid)
        #expect(statuses[500] == nil, "\(statuses)")
        #expect(after - before < 25, "RSS grew from \(before) MB to \(after) MB after 300 sign-ins with 200 KB emails")
        #expect(try await server.stop(signal: SIGTERM) == 0)
        try? FileManager.default.removeItem(atPath: directory)
        await database.drop()
    }

    /// Upload bodies are spooled to disk as they arrive and the file part copied from there:
    /// eight 10 MB uploads at once would hold 80 MB (twice that with a copy) in memory.
    @Test func concurrentTenMegabyteUploadsAreNotHeldInMemory() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09u-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try Market09Process(["serve"], environment: [
            "DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "s", count: 40), "PORT": "0", "MEDIA_DIR": directory + "/media",
            "UPLOAD_MIN_FREE_BYTES": "0",
        ], directory: directory)
        let port = try await server.waitUntilListening()
        let signUp = try await RawHTTPClient.request("POST", "/v1/auth/signup", port: port, headers: [("Content-Type", "application/json")],
                                                     body: try JSONSerialization.data(withJSONObject: ["email": "up@example.com", "password": "upload-password"]))
        let token = try #require(try signUp.jsonObject()["access_token"] as? String)
        func upload(_ seed: UInt8) async throws -> Int {
            let body = ImageFixtures.multipart([("file", "big.png", "image/png", ImageFixtures.png(width: 9, height: 9, filler: (10 << 20) - 64) + Data([seed]))])
            return try await RawHTTPClient.request("POST", "/v1/uploads", port: port, headers: [
                ("Authorization", "Bearer \(token)"), ("Content-Type", "multipart/form-data; boundary=b0undary-Xy"),
            ], body: body).status
        }
        _ = try await upload(0)  // warm up
        let before = try residentMegabytes(server.process.pid)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for seed in UInt8(1)...8 { group.addTask { try await upload(seed) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let after = try residentMegabytes(server.process.pid)
        #expect(statuses == Array(repeating: 201, count: 8), "\(statuses)")
        #expect(after - before < 20, "RSS grew from \(before) MB to \(after) MB during eight concurrent 10 MB uploads")
        #expect(try await server.stop(signal: SIGTERM) == 0)
        try? FileManager.default.removeItem(atPath: directory)
        await database.drop()
    }
}
