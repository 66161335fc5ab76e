import Domain
import Synchronization

/// Likes of one post, applied together. With a synchronous standby every commit waits for
/// the standby (~30 ms on `scripts/cluster`), so one commit per like capped a hot post at one
/// like per round trip. Here the first like of a post runs at once; the likes of that post
/// that arrive while it commits wait and then go together in one statement and one commit,
/// and so on while they keep coming. An idle post pays nothing; a viral one pays one commit
/// per batch instead of per like. Batches hold no post row while they commit (migration
/// 0034), so each instance's batches of one post commit side by side with the others'.
///
/// Each caller gets the count after its batch: its own change included, never less than a
/// count an earlier answer showed while only likes arrive. A batch that fails (a user
/// deleted meanwhile, say) is run again one like at a time, so one bad like fails alone.
final class LikeBatches: Sendable {
    struct Like: Sendable {
        let user: UserID
        let liked: Bool
    }

    private struct Waiting: Sendable {
        let like: Like
        let answer: CheckedContinuation<Int?, any Error>
    }

    /// Posts with a batch in flight → the likes waiting for the next one.
    private let waiting = Mutex<[PostID: [Waiting]]>([:])
    /// At most this many likes a statement (the rest wait for the next).
    private let maxBatch: Int
    /// Applies likes of one post in one transaction; the count after them, `nil` when the
    /// post does not exist.
    private let apply: @Sendable (PostID, [Like]) async throws -> Int?

    init(maxBatch: Int = 500, apply: @escaping @Sendable (PostID, [Like]) async throws -> Int?) {
        self.maxBatch = maxBatch
        self.apply = apply
    }

    /// Applies `like` to `post` in the next batch; the post's count after that batch.
    func submit(_ like: Like, to post: PostID) async throws -> Int? {
        try await withCheckedThrowingContinuation { answer in
            let entry = Waiting(like: like, answer: answer)
            let leads = waiting.withLock { waiting -> Bool in
                if waiting[post] != nil {
                    waiting[post]!.append(entry)
                    return false
                }
                waiting[post] = []
                return true
            }
            if leads { Task { await self.drive(post, first: [entry]) } }
        }
    }

    /// Runs batches of `post` until none is waiting.
    private func drive(_ post: PostID, first: [Waiting]) async {
        var batch = first
        while !batch.isEmpty {
            await run(batch, post)
            batch = waiting.withLock { waiting in
                let queued = waiting[post] ?? []
                let next = Array(queued.prefix(maxBatch))
                if queued.isEmpty { waiting[post] = nil } else { waiting[post] = Array(queued.dropFirst(next.count)) }
                return next
            }
        }
    }

    private func run(_ batch: [Waiting], _ post: PostID) async {
        do {
            let count = try await apply(post, batch.map(\.like))
            for entry in batch { entry.answer.resume(returning: count) }
        } catch where batch.count > 1 {
            for entry in batch {
                do { entry.answer.resume(returning: try await apply(post, [entry.like])) } catch { entry.answer.resume(throwing: error) }
            }
        } catch {
            batch[0].answer.resume(throwing: error)
        }
    }
}
