@testable import Cryptography
import Foundation
@testable import Persistence
import Synchronization
import Testing

/// A provider's key set is fetched once per need: concurrent tokens with an unknown `kid`
/// share one fetch, unknown `kid`s reload at most once per interval, failures too.
@Suite struct JWKSKeyStoreTests {
    private final class Counter: Sendable {
        let fetches = Atomic<Int>(0)
        var value: Int { fetches.load(ordering: .sequentiallyConsistent) }
    }

    private static let emptySet = Data(#"{"keys":[]}"#.utf8)

    @Test func concurrentUnknownKeysShareOneFetchAndReloadAtMostOncePerInterval() async throws {
        let counter = Counter()
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let store = JWKSKeyStore(reloadInterval: 60, now: { clock.withLock { $0 } }) {
            counter.fetches.add(1, ordering: .sequentiallyConsistent)
            try await Task.sleep(for: .milliseconds(200))
            return Self.emptySet
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 { group.addTask { _ = try await store.key(id: "forged-\(index)") } }
            try await group.waitForAll()
        }
        #expect(counter.value == 1, "50 tokens with unknown kids caused \(counter.value) fetches")
        for index in 0..<20 { #expect(try await store.key(id: "again-\(index)") == nil) }
        #expect(counter.value == 1)
        clock.withLock { $0 += 61 }
        _ = try await store.key(id: "later")
        #expect(counter.value == 2)
    }

    @Test func aFailingFetchIsNotRetriedByEveryRequest() async throws {
        let counter = Counter()
        let store = JWKSKeyStore(reloadInterval: 60, now: { Date() }) {
            counter.fetches.add(1, ordering: .sequentiallyConsistent)
            throw URLError(.timedOut)
        }
        for _ in 0..<10 { _ = try? await store.key(id: "any") }
        #expect(counter.value == 1, "\(counter.value) fetches for 10 tokens while the provider was down")
    }
}
