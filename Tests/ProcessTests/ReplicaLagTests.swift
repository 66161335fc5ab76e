import Foundation
import Persistence
import PostgresDriver
import ProcessSupport
import TestSupport
import Testing

/// The lag bound holds when measurements come late: a replica behind across a gap between
/// polls is not healthy, and a replica whose last measurement is too old for the bound is
/// not read. Polled by hand here, as late as a busy process once polled.
@Suite struct ReplicaLagTests {
    @Test func aLatePollNeitherHidesALagNorServesFromAStaleStatus() async throws {
        let primary = try await ThrowawayCluster.start()
        let replica = try await primary.startReplica()
        let pool = PostgresPool(.init(url: primary.url, size: 1))
        let control = PostgresPool(.init(url: replica.url, size: 1))
        let replicas = ReadReplicas(primary: pool, urls: [replica.url], poolSize: 1, statementTimeout: .seconds(5),
                                   maxLag: .seconds(3), pollInterval: .milliseconds(50))
        func write() async throws { try await pool.statement { try $0.execute(script: "CREATE TABLE IF NOT EXISTS lag (n int); INSERT INTO lag VALUES (1)") } }
        func replay(_ on: Bool) async throws {
            _ = try await control.statement { try $0.query(on ? "SELECT pg_wal_replay_resume()" : "SELECT pg_wal_replay_pause()").count }
        }
        func pollUntilCaughtUp() async throws {
            let target = try await replicas.writePosition()
            let deadline = ContinuousClock.now + .seconds(10)
            repeat {
                await replicas.poll()
                if let replayed = replicas.statuses().first?.replayed, replayed >= target { return }
                try await Task.sleep(for: .milliseconds(20))
            } while ContinuousClock.now < deadline
            throw TestEnvironmentError("the replica never caught up: \(replicas.statuses())")
        }
        do {
            try await write()
            try await pollUntilCaughtUp()
            #expect(replicas.readPool(after: nil) !== pool, "a caught-up replica serves reads")

            // Replay paused, a write, a poll right after it (the sample is new: no lag yet),
            // then no poll for 6.5 s: more than the samples' window (6.1 s). (Bounds this
            // long because a test run loaded by four busy loops took over a second between
            // a poll and the read after it.)
            try await replay(false)
            try await write()
            await replicas.poll()
            try await Task.sleep(for: .milliseconds(6_500))
            #expect(replicas.readPool(after: nil) === pool, "a measurement 6.5 s old still sent reads to the replica")
            await replicas.poll()
            #expect(replicas.statuses().first?.healthy == false, "6.5 s behind, measured healthy: \(replicas.statuses())")
            #expect(replicas.readPool(after: nil) === pool)

            try await replay(true)
            try await pollUntilCaughtUp()
            #expect(replicas.readPool(after: nil) !== pool)
        } catch {
            Issue.record(error)
        }
        await replicas.stop()
        await control.close()
        await pool.close()
        await replica.destroy()
        await primary.destroy()
    }
}
