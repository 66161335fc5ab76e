import Foundation
@testable import PostgresDriver
import Synchronization
import Testing

/// A stand-in for a libpq connection: whether it is open, the round trips it completed.
final class FakeConnection: PooledConnection, @unchecked Sendable {
    // @unchecked Sendable: used by one test's thread at a time, as the pool uses a
    // connection from its one thread.
    var isOpen = true
    var successfulRoundTrips = 0
    var closed = false
    let number: Int

    init(_ number: Int) { self.number = number }

    func close() {
        isOpen = false
        closed = true
    }

    /// A statement that reached the server.
    func roundTrip() { successfulRoundTrips += 1 }
}

/// The pool's decisions without a database (as postgres-nio tests its pool module): when a
/// connection is reused, reopened, or a job retried on a fresh one; how the queue orders,
/// refuses and drains work.
@Suite struct PoolUnitTests {
    /// Opens numbered fake connections, or fails when `failing`.
    final class Opener: @unchecked Sendable {
        // @unchecked Sendable: one test's thread only.
        var opened: [FakeConnection] = []
        var failing = false
        func open() throws -> FakeConnection {
            if failing { throw PostgresError(code: .connectionFailure, message: "refused") }
            opened.append(FakeConnection(opened.count + 1))
            return opened.last!
        }
    }

    static let lost = PostgresError(code: .connectionFailure, message: "server closed the connection unexpectedly")

    @Test func aConnectionIsOpenedOnFirstUseAndThenReused() throws {
        let opener = Opener()
        var slot: FakeConnection?
        for _ in 0..<3 {
            let used = try PostgresPool.run({ connection in connection.roundTrip(); return connection.number }, on: &slot, open: opener.open).get()
            #expect(used == 1)
        }
        #expect(opener.opened.count == 1)
    }

    @Test func aClosedConnectionIsReplacedBeforeTheJob() throws {
        let opener = Opener()
        var slot: FakeConnection? = try opener.open()
        slot?.isOpen = false
        let used = try PostgresPool.run({ $0.number }, on: &slot, open: opener.open).get()
        #expect(used == 2 && opener.opened[0].closed)
    }

    @Test func aReusedConnectionThatFailsBeforeReachingTheServerIsRetriedOnceOnAFreshOne() throws {
        let opener = Opener()
        var slot: FakeConnection? = try opener.open()
        let attempts = Mutex(0)
        let used = try PostgresPool.run({ connection -> Int in
            attempts.withLock { $0 += 1 }
            if connection.number == 1 { throw Self.lost }
            connection.roundTrip()
            return connection.number
        }, on: &slot, open: opener.open).get()
        #expect(used == 2 && attempts.withLock { $0 } == 2 && slot === opener.opened[1])
    }

    @Test func aJobThatReachedTheServerIsNeverSentTwice() {
        let opener = Opener()
        var slot: FakeConnection? = try? opener.open()
        let attempts = Mutex(0)
        let result = PostgresPool.run({ connection -> Int in
            attempts.withLock { $0 += 1 }
            connection.roundTrip()
            throw Self.lost
        }, on: &slot, open: opener.open)
        #expect(throws: PostgresError.self) { try result.get() }
        #expect(attempts.withLock { $0 } == 1 && slot == nil, "dropped, not retried: the statement may have run")
    }

    @Test func aFreshConnectionThatFailsIsNotRetried() {
        let opener = Opener()
        var slot: FakeConnection?
        let attempts = Mutex(0)
        let result = PostgresPool.run({ _ -> Int in
            attempts.withLock { $0 += 1 }
            throw Self.lost
        }, on: &slot, open: opener.open)
        #expect(throws: PostgresError.self) { try result.get() }
        #expect(attempts.withLock { $0 } == 1 && opener.opened.count == 1)
    }

    @Test func aServerThatRefusesConnectionsFailsTheJobAndLeavesNoConnection() {
        let opener = Opener()
        opener.failing = true
        var slot: FakeConnection?
        let result = PostgresPool.run({ _ in 1 }, on: &slot, open: opener.open)
        #expect(throws: PostgresError.self) { try result.get() }
        #expect(slot == nil)
    }

    @Test func otherErrorsKeepTheConnection() {
        struct Refused: Error {}
        let opener = Opener()
        var slot: FakeConnection?
        let result = PostgresPool.run({ _ -> Int in throw Refused() }, on: &slot, open: opener.open)
        #expect(throws: Refused.self) { try result.get() }
        #expect(slot?.isOpen == true, "a statement error does not break the connection")
    }

    @Test func theQueueHandsOutJobsInOrderAndCountsThem() {
        let queue = JobQueue(workers: 1)
        let ran = Mutex<[Int]>([])
        for index in 0..<3 { #expect(queue.enqueue { _, _ in ran.withLock { $0.append(index) } }) }
        #expect(queue.statistics(size: 1).queued == 3)
        let worker = PoolWorker(queue: queue)
        let configuration = PostgresPool.Configuration(url: "")
        var finished = false
        for _ in 0..<3 {
            queue.next(afterJob: finished)?(worker, configuration)
            finished = true
        }
        #expect(ran.withLock { $0 } == [0, 1, 2])
        #expect(queue.statistics(size: 1).busy == 1 && queue.isEmpty)
    }

    @Test func aClosedQueueRefusesWorkAndLetsItsWorkersGo() {
        let queue = JobQueue(workers: 1)
        let exited = Mutex(false)
        queue.close { exited.withLock { $0 = true } }
        #expect(!queue.enqueue { _, _ in })
        #expect(queue.next(afterJob: false) == nil)
        #expect(!exited.withLock { $0 })
        queue.workerExited()
        #expect(exited.withLock { $0 })
    }

    @Test func aJobThatWaitedTooLongIsRefusedAndCounted() {
        let queue = JobQueue(workers: 1)
        let refusal = queue.refusal(enqueuedAt: .now - .seconds(11), maxWait: .seconds(10), presence: nil)
        #expect(refusal?.code == .poolTimeout)
        #expect(queue.statistics(size: 1).totals.queueTimeouts == 1)
        #expect(queue.refusal(enqueuedAt: .now, maxWait: .seconds(10), presence: nil) == nil)
    }

    @Test func theClientIsAskedOnlyAfterAWaitWorthDroppingAndOnlyForReads() {
        let queue = JobQueue(workers: 1)
        let asked = Mutex(0)
        let gone = ClientPresence { asked.withLock { $0 += 1 }; return true }
        #expect(queue.refusal(enqueuedAt: .now, maxWait: .seconds(10), presence: gone) == nil, "a short wait: not asked")
        #expect(asked.withLock { $0 } == 0)
        #expect(queue.refusal(enqueuedAt: .now - .milliseconds(60), maxWait: .seconds(10), presence: gone)?.code == .clientGone)
        #expect(queue.refusal(enqueuedAt: .now - .milliseconds(60), maxWait: .seconds(10), presence: nil) == nil, "a write has no presence")
        #expect(queue.statistics(size: 1).totals.clientsGone == 1)
    }

    @Test func statementTimeoutsAreCountedAsTheyPass() {
        let queue = JobQueue(workers: 1)
        _ = queue.counted(Result<Int, any Error>.failure(PostgresError(code: .queryTimeout, message: "canceling statement due to statement timeout")))
        _ = queue.counted(Result<Int, any Error>.success(1))
        #expect(queue.statistics(size: 1).totals.statementTimeouts == 1)
    }
}
