import Domain
import Foundation
import Persistence
import Synchronization
import Testing
import Workers

/// The KDF's threads: never more than the limit at once, a bounded queue, refusals at once.
@Suite struct BoundedWorkersTests {
    /// A gate the jobs wait on, so the test decides when they finish.
    private final class Gate: Sendable {
        private let open = Atomic<Bool>(false)
        let running = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        func pass() {
            let now = running.add(1, ordering: .sequentiallyConsistent).newValue
            peak.max(now, ordering: .sequentiallyConsistent)
            while !open.load(ordering: .sequentiallyConsistent) { usleep(1_000) }
            running.subtract(1, ordering: .sequentiallyConsistent)
        }
        func release() { open.store(true, ordering: .sequentiallyConsistent) }
    }

    @Test func jobsBeyondTheThreadsAndTheQueueAreRefusedAtOnce() async throws {
        let workers = BoundedWorkers(name: "test-kdf", threads: 2, queueLimit: 3)
        let gate = Gate()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<5 {
                group.addTask { try await workers.run { gate.pass(); return index } }
            }
            // Wait until both threads hold a job and three wait.
            while gate.running.load(ordering: .sequentiallyConsistent) < 2 || workers.waitingCount < 3 {
                try await Task.sleep(for: .milliseconds(1))
            }
            let started = ContinuousClock.now
            await #expect(throws: WorkersBusy(retryAfterSeconds: 1)) { try await workers.run { 0 } }
            #expect(ContinuousClock.now - started < .seconds(1), "a refusal must not wait for a thread")
            gate.release()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results.sorted() == [0, 1, 2, 3, 4])
        #expect(gate.peak.load(ordering: .sequentiallyConsistent) == 2)
        // Once drained, the workers accept work again.
        #expect(try await workers.run { 7 } == 7)
    }
}
