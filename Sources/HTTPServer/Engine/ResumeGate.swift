import Synchronization

/// Who may still touch the engine's suspended connections: any number of threads at once
/// until shutdown closes the gate, and none after, since resuming a connection once
/// `MHD_stop_daemon` runs is fatal.
///
/// Not the server's state mutex: resumes ran under it, and `MHD_resume_connection` (a lock
/// of the engine's and a write to its wake-up descriptor) held it long enough that the
/// pool threads answering and the engine threads reading requests queued on it — 12.6 %
/// of the server's CPU spinning in `Mutex._lockSlow` at `/v1/me` under wrk -c64 (perf). A counter of bodies in progress and a flag are enough: a body counts
/// itself before it reads the flag, `close` sets the flag before it reads the count
/// (both sequentially consistent), so either the body sees the gate closed or `close`
/// waits for it.
final class ResumeGate: Sendable {
    private let running = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)

    /// Runs `body` unless the gate is closed; `nil` when it is.
    func ifOpen<T>(_ body: () -> T) -> T? {
        running.add(1, ordering: .sequentiallyConsistent)
        defer { running.subtract(1, ordering: .sequentiallyConsistent) }
        guard !closed.load(ordering: .sequentiallyConsistent) else { return nil }
        return body()
    }

    /// Closes the gate and returns once no body runs.
    func close() async {
        closed.store(true, ordering: .sequentiallyConsistent)
        while running.load(ordering: .sequentiallyConsistent) > 0 {
            try? await Task.sleep(for: .microseconds(100))
        }
    }
}
