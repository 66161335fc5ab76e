import Foundation
@testable import HTTPServer
import Synchronization
import Testing

/// The gate between answers resuming their connections and shutdown stopping the engine:
/// once `close` returns, no resume runs or will run (libmicrohttpd aborts on one).
@Suite struct ResumeGateTests {
    @Test func runsBodiesWhileOpenAndNoneOnceClosed() async {
        let gate = ResumeGate()
        #expect(gate.ifOpen { 7 } == 7)
        await gate.close()
        let ran = Counter()
        #expect(gate.ifOpen { ran.add() } == nil)
        #expect(ran.value == 0)
    }

    @Test func closeWaitsForABodyInProgress() async throws {
        let gate = ResumeGate()
        let entered = DispatchGroup()
        entered.enter()
        let release = DispatchSemaphore(value: 0)
        let bodyDone = Counter()
        Thread.detachNewThread {
            _ = gate.ifOpen {
                entered.leave()
                release.wait()
                bodyDone.add()
            }
        }
        await Self.waitFor(entered)
        let closing = Task { await gate.close(); return bodyDone.value == 1 }
        try await Task.sleep(for: .milliseconds(50))
        release.signal()
        #expect(await closing.value, "close returned while a body was still running")
    }

    @Test func noBodyRunsAfterCloseReturnsWhateverTheInterleaving() async {
        let gate = ResumeGate()
        let closed = Counter()
        let lateBodies = Counter()
        let threads = 4
        let started = DispatchGroup()
        let finished = DispatchGroup()
        for _ in 0..<threads {
            started.enter()
            finished.enter()
            Thread.detachNewThread {
                started.leave()
                // Bounded: each thread stops after 200,000 tries or when the gate turns it away.
                for _ in 0..<200_000 {
                    let ran: Bool? = gate.ifOpen {
                        if closed.value == 1 { lateBodies.add() }
                        return true
                    }
                    if ran == nil { break }
                }
                finished.leave()
            }
        }
        await Self.waitFor(started)
        await gate.close()
        closed.add()
        await Self.waitFor(finished)
        #expect(lateBodies.value == 0)
    }

    /// A counter threads share.
    private final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .sequentiallyConsistent) }
        func add() { count.add(1, ordering: .sequentiallyConsistent) }
    }

    /// Waits for `group` without blocking a thread of Swift's cooperative pool.
    private static func waitFor(_ group: DispatchGroup) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { done.resume() }
        }
    }
}
