import Domain
import Foundation
@testable import Persistence
import Synchronization
import Testing

/// ``LikeBatches``' group commit across posts, over an `apply` that records its groups and
/// holds them until the test lets them go.
@Suite struct LikeGroupTests {
    /// What `apply` saw, and the groups it is holding.
    final class Recorder: Sendable {
        let groups = Mutex<[[LikeBatches.PostLikes]]>([])
        let held = Mutex<[(posts: Set<Int>, continuation: CheckedContinuation<Void, Never>)]>([])

        /// Records the group, holds it, then answers each post's count as post × 100 + its likes.
        func apply(_ group: [LikeBatches.PostLikes]) async -> [PostID: Int?] {
            await withCheckedContinuation { continuation in
                groups.withLock { $0.append(group) }
                held.withLock { $0.append((Set(group.map(\.post.rawValue)), continuation)) }
            }
            return Dictionary(uniqueKeysWithValues: group.map { ($0.post, $0.post.rawValue * 100 + $0.likes.count) })
        }

        /// Lets the held group holding `post` commit (every held group when `nil`).
        func release(_ post: Int? = nil) {
            let released = held.withLock { held in
                let chosen = held.filter { post == nil || $0.posts.contains(post!) }
                held.removeAll { post == nil || $0.posts.contains(post!) }
                return chosen
            }
            for group in released { group.continuation.resume() }
        }

        func waitForGroups(_ count: Int) async throws {
            for _ in 0..<500 where groups.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(2)) }
            #expect(groups.withLock { $0.count } >= count)
        }
    }

    /// Two groups commit at once; the 30 likes of 12 posts that arrive meanwhile wait and go
    /// together in the next group, each post's likes in the order they came, and a post
    /// already committing (post 1) waits for the group after. Each caller gets its post's
    /// count after its group.
    @Test(.timeLimit(.minutes(1))) func likesArrivingWhileGroupsCommitShareTheNextGroup() async throws {
        let recorder = Recorder()
        let batches = LikeBatches(maxInFlight: 2) { await recorder.apply($0) }
        let users = (0..<30).map { _ in UserID(rawValue: UUID()) }
        async let first = batches.submit(.init(user: users[0], liked: true), to: PostID(rawValue: 1))
        async let second = batches.submit(.init(user: users[1], liked: true), to: PostID(rawValue: 2))
        try await recorder.waitForGroups(2)
        let answers = Task {
            try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                for index in 0..<30 {
                    // Posts 1 and 3...13; post 1's likes wait for its own group to end.
                    let post = index % 12 == 0 ? 1 : 2 + index % 12
                    group.addTask { (post, try await batches.submit(.init(user: users[index], liked: index % 2 == 0), to: PostID(rawValue: post))) }
                    try await Task.sleep(for: .milliseconds(1))
                }
                return try await group.reduce(into: [(Int, Int?)]()) { $0.append($1) }
            }
        }
        // All 30 are waiting (a fixed 100 ms was too short for 30 arrivals 1 ms apart on a
        // loaded machine: a fresh-clone CI saw 22 of them).
        for _ in 0..<1_000 where batches.waitingLikes < 30 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(batches.waitingLikes == 30)
        #expect(recorder.groups.withLock { $0.count } == 2)
        // Post 2's group ends: the next takes every waiting like but post 1's, still committing.
        recorder.release(2)
        try await recorder.waitForGroups(3)
        var groups = recorder.groups.withLock { $0 }
        #expect(Set(groups[2].map(\.post.rawValue)) == Set(3...13))
        #expect(groups[2].reduce(0) { $0 + $1.likes.count } == 27)
        // Post 1's group ends: its three waiting likes go next, on their own.
        recorder.release(1)
        try await recorder.waitForGroups(4)
        // Every group from here on is let go, also any the assertions above did not expect:
        // one left held would keep `answers` waiting past the time limit (a continuation is
        // not cut short by it), and a failure would hang the run instead of failing it.
        let releasing = Task {
            while !Task.isCancelled {
                recorder.release()
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        defer { releasing.cancel() }
        #expect(try await first == 101)
        #expect(try await second == 201)
        let answered = try await answers.value
        groups = recorder.groups.withLock { $0 }
        #expect(groups.count == 4)
        #expect(groups[3].map(\.post.rawValue) == [1])
        #expect(Set(groups[3][0].likes.map(\.user)) == [users[0], users[12], users[24]])
        for (post, count) in answered {
            let group = groups.dropFirst(2).first { $0.contains { $0.post.rawValue == post } }!
            #expect(count == post * 100 + group.first { $0.post.rawValue == post }!.likes.count)
        }
    }

    struct Refused: Error {}

    /// A group that fails is run again post by post, then a post's likes one at a time: only
    /// the like that fails alone fails (a user deleted meanwhile, say).
    @Test func aFailingGroupFailsOnlyItsBadLike() async throws {
        let bad = UserID(rawValue: UUID())
        let calls = Mutex(0)
        let batches = LikeBatches(maxInFlight: 1) { group in
            calls.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(20))
            if group.contains(where: { $0.likes.contains { $0.user == bad } }) { throw Refused() }
            return Dictionary(uniqueKeysWithValues: group.map { ($0.post, $0.likes.count) })
        }
        let users = (0..<8).map { _ in UserID(rawValue: UUID()) } + [bad]
        let results = await withTaskGroup(of: (UserID, Int?, Bool).self) { group in
            for (index, user) in users.enumerated() {
                group.addTask {
                    do { return (user, try await batches.submit(.init(user: user, liked: true), to: PostID(rawValue: 1 + index % 3)), true) }
                    catch { return (user, nil, false) }
                }
            }
            return await group.reduce(into: [(UserID, Int?, Bool)]()) { $0.append($1) }
        }
        #expect(results.filter { !$0.2 }.map(\.0) == [bad])
        #expect(results.filter(\.2).count == 8)
        #expect(calls.withLock { $0 } >= 2)
    }
}
