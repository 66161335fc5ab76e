import Domain
import Synchronization

/// Likes applied together: group commit, across posts. With a synchronous standby every
/// commit waits for the standby (~30 ms on `scripts/cluster`), and without one a lone like
/// still paid a transaction of its own (like/unlike pairs of 32 users over 2,000 posts:
/// ~250 µs of PostgreSQL CPU each). Here a like runs at once while fewer than
/// `maxInFlight` groups are committing; the likes that arrive meanwhile — of any posts —
/// wait and then go together in one statement and one commit, and so on while they keep
/// coming. An idle server pays nothing; a busy one pays one commit per group.
///
/// A post is in one group at a time: its later likes wait for the next, so one user's like
/// and unlike apply in the order they came. Groups hold no post row while they commit unless
/// a post's like is counted in place (migration 0034), so each instance's groups commit side
/// by side with the others'.
///
/// Each caller gets its post's count after its group: its own change included, never less
/// than a count an earlier answer showed while only likes arrive. A group that fails (a user
/// deleted meanwhile, say) is run again post by post, and a post's likes one at a time, so
/// one bad like fails alone.
final class LikeBatches: Sendable {
    struct Like: Sendable {
        let user: UserID
        let liked: Bool
    }

    /// One post's likes in a group, in the order they came.
    struct PostLikes: Sendable {
        let post: PostID
        let likes: [Like]
    }

    private struct Waiting: Sendable {
        let like: Like
        let answer: CheckedContinuation<Int?, any Error>
    }

    private struct State {
        /// Posts in a group in flight.
        var busy: Set<PostID> = []
        /// Likes waiting for the next group, by post, and the order their posts came.
        var waiting: [PostID: [Waiting]] = [:]
        var order: [PostID] = []
        /// Groups in flight.
        var running = 0
    }

    private let state = Mutex(State())
    /// At most this many likes a statement (the rest wait for the next).
    private let maxBatch: Int
    /// Groups committing at once: more would only split the likes waiting into smaller groups.
    private let maxInFlight: Int
    /// Applies a group in one transaction; each post's count after it, `nil` for a post
    /// that does not exist.
    private let apply: @Sendable ([PostLikes]) async throws -> [PostID: Int?]

    init(maxBatch: Int = 500, maxInFlight: Int = 2, apply: @escaping @Sendable ([PostLikes]) async throws -> [PostID: Int?]) {
        self.maxBatch = maxBatch
        self.maxInFlight = maxInFlight
        self.apply = apply
    }

    /// Likes waiting for a group (not yet taken by one).
    var waitingLikes: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    /// Applies `like` to `post` in the next group; the post's count after that group.
    func submit(_ like: Like, to post: PostID) async throws -> Int? {
        try await withCheckedThrowingContinuation { answer in
            let entry = Waiting(like: like, answer: answer)
            let leads = state.withLock { state -> Bool in
                if state.running < maxInFlight && !state.busy.contains(post) && state.waiting[post] == nil {
                    state.running += 1
                    state.busy.insert(post)
                    return true
                }
                if state.waiting[post] == nil { state.order.append(post) }
                state.waiting[post, default: []].append(entry)
                return false
            }
            if leads { Task { await self.drive(first: [post: [entry]], order: [post]) } }
        }
    }

    /// Runs groups until none is waiting that may run.
    private func drive(first: [PostID: [Waiting]], order: [PostID]) async {
        var group = first, posts = order
        while !posts.isEmpty {
            await run(group, posts)
            (group, posts) = state.withLock { state in
                state.busy.subtract(posts)
                let next = Self.take(&state, maxBatch)
                if next.posts.isEmpty { state.running -= 1 } else { state.busy.formUnion(next.posts) }
                return next
            }
        }
    }

    /// The waiting likes of posts not in flight, at most `limit` (a post's likes are never split
    /// past its first: the rest wait for the group after).
    private static func take(_ state: inout State, _ limit: Int) -> (likes: [PostID: [Waiting]], posts: [PostID]) {
        var likes: [PostID: [Waiting]] = [:], posts: [PostID] = [], count = 0, kept: [PostID] = []
        for post in state.order {
            guard count < limit, !state.busy.contains(post), let queued = state.waiting[post] else {
                kept.append(post)
                continue
            }
            let taken = Array(queued.prefix(limit - count))
            count += taken.count
            likes[post] = taken
            posts.append(post)
            if taken.count == queued.count {
                state.waiting[post] = nil
            } else {
                state.waiting[post] = Array(queued.dropFirst(taken.count))
                kept.append(post)
            }
        }
        state.order = kept
        return (likes, posts)
    }

    private func run(_ group: [PostID: [Waiting]], _ posts: [PostID]) async {
        let batches = posts.map { PostLikes(post: $0, likes: group[$0]!.map(\.like)) }
        do {
            let counts = try await apply(batches)
            for post in posts {
                let count = counts[post] ?? nil
                for entry in group[post]! { entry.answer.resume(returning: count) }
            }
        } catch {
            for post in posts { await runAlone(group[post]!, post, failure: posts.count > 1 ? nil : error) }
        }
    }

    /// One post's likes after its group failed: together, then one at a time. `failure` is the
    /// group's own error when the post was alone in it (nothing to retry together).
    private func runAlone(_ entries: [Waiting], _ post: PostID, failure: (any Error)?) async {
        if failure == nil {
            do {
                let count = try await apply([PostLikes(post: post, likes: entries.map(\.like))])[post] ?? nil
                for entry in entries { entry.answer.resume(returning: count) }
                return
            } catch where entries.count == 1 {
                entries[0].answer.resume(throwing: error)
                return
            } catch {}
        } else if entries.count == 1 {
            entries[0].answer.resume(throwing: failure!)
            return
        }
        for entry in entries {
            do {
                entry.answer.resume(returning: try await apply([PostLikes(post: post, likes: [entry.like])])[post] ?? nil)
            } catch {
                entry.answer.resume(throwing: error)
            }
        }
    }
}
