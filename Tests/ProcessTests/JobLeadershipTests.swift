import Foundation
import Persistence
import ProcessSupport
import TestSupport
import Testing

/// Three `market09` processes over one database: exactly one runs the background jobs, a
/// `kill -9` of it hands the jobs to another within the lease, and a graceful stop hands
/// them over at once.
@Suite struct JobLeadershipTests {
    private static let lease = 2.0

    private struct Instance {
        let process: Market09Process
        /// The instance's metrics listener.
        let metricsPort: Int

        func leads() async throws -> Bool {
            let metrics = try await RawHTTPClient.request("GET", "/metrics", port: metricsPort)
            return String(decoding: metrics.body, as: UTF8.self).contains("\nmarket09_job_leader 1")
        }
    }

    /// The instances that say (through `/metrics`) they hold the lease, once that is
    /// exactly one, waiting up to `seconds`.
    private func theLeader(of instances: [Instance], within seconds: Double) async throws -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var leaders: [Int] = []
            for (index, instance) in instances.enumerated() where try await instance.leads() { leaders.append(index) }
            #expect(leaders.count <= 1, "two leaders at once: \(leaders)")
            if leaders.count == 1 { return leaders[0] }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Whether `process` logs `message` within 2 s.
    private func logged(_ message: String, by process: Market09Process) async throws -> Bool {
        let deadline = Date().addingTimeInterval(2)
        repeat {
            if process.process.output().contains("\"message\":\"\(message)\"") { return true }
            try await Task.sleep(for: .milliseconds(20))
        } while Date() < deadline
        return false
    }

    @Test func oneInstanceRunsTheJobsAndAnotherTakesOverWhenItDies() async throws {
        let database = try await TestDatabase.migrated()
        let directory = "/tmp/m09-leader-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": TestApp.secret, "PORT": "0", "MIGRATE_ON_START": "false",
                           "JOB_LEASE_SECONDS": String(Int(Self.lease)), "MEDIA_DIR": directory + "/media"]
        var instances: [Instance] = []
        defer {
            for instance in instances { instance.process.process.send(SIGKILL) }
            try? FileManager.default.removeItem(atPath: directory)
        }
        for _ in 0..<3 {
            let process = try Market09Process(["serve"], environment: environment, directory: directory)
            _ = try await process.waitUntilListening()
            let metricsPort = try #require(try await process.waitForLine(message: "metrics listening")["port"] as? Int)
            instances.append(Instance(process: process, metricsPort: metricsPort))
        }
        let first = try #require(try await theLeader(of: instances, within: 5))
        // It stays the one leader over several renewals.
        let settled = Date().addingTimeInterval(Self.lease * 2)
        while Date() < settled { #expect(try await theLeader(of: instances, within: 1) == first) }

        // kill -9: no goodbye; the lease expires and one of the others takes it.
        let killedAt = Date()
        instances[first].process.process.send(SIGKILL)
        let survivors = instances.enumerated().filter { $0.offset != first }.map(\.element)
        let second = try #require(try await theLeader(of: survivors, within: Self.lease * 3), "no instance took over after the leader died")
        let takeover = Date().timeIntervalSince(killedAt)
        // The lease's end plus one attempt's interval, and scheduling slack: on a 2-core CI
        // run with Chromium and a dozen servers beside it the takeover once took 4.84 s (with
        // 1 s of slack it failed; alone it took 2.08-2.10 s in three runs).
        #expect(takeover < Self.lease * 4 / 3 + 3, "took \(takeover) s with a \(Self.lease) s lease")
        // The log line follows the lease (the writer thread writes it a moment later).
        #expect(try await logged("job leadership acquired", by: survivors[second].process))

        // A graceful stop gives the lease up (its log says so): the last one takes it at its
        // next attempt (a third of the lease), not at the lease's expiry. Timed from the
        // process's exit: how long a loaded machine takes to stop a debug build is not the
        // handover (2.04 s from SIGTERM once, on a CI run of the whole suite).
        #expect(try await survivors[second].process.stop(signal: SIGTERM) == 0)
        let stoppedAt = Date()
        #expect(try await logged("job leadership released", by: survivors[second].process))
        let last = survivors[1 - second]
        #expect(try await theLeader(of: [last], within: Self.lease) == 0)
        #expect(Date().timeIntervalSince(stoppedAt) < Self.lease)
        #expect(try await last.process.stop(signal: SIGTERM) == 0)
        await database.drop()
    }
}
