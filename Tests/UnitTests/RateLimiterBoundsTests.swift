@testable import App
import Domain
import Fakes
import Foundation
import HTTPServer
import Testing

/// The limiters' tables are keyed by client input: bounded, and emptied by time.
@Suite struct RateLimiterBoundsTests {
    @Test func expiredWindowsAreSweptAndLiveKeysAreCapped() throws {
        let clock = TestClock()
        let limiter = RateLimiter(.init(count: 5, per: 60), capacity: 2_000, now: clock.source)
        for index in 0..<1_500 { try limiter.record("old-\(index)") }
        #expect(limiter.keyCount == 1_500)
        clock.advance(by: 61)
        // The next growth past the sweep point drops every expired window.
        for index in 0..<600 { try limiter.record("new-\(index)") }
        #expect(limiter.keyCount <= 1_000, "\(limiter.keyCount) keys after the old windows expired")
        // However many live keys arrive, the table never holds more than its capacity.
        for index in 0..<10_000 { try limiter.record("flood-\(index)") }
        #expect(limiter.keyCount <= 2_000)
        // A key that was evicted simply starts a new window; a live key keeps its count.
        for _ in 0..<5 { try limiter.record("victim") }
        #expect(throws: AuthError.self) { try limiter.record("victim") }
    }
}
