import App
import Foundation
import HTTPServer
import Persistence
import Workers

/// The write end of the self-pipe SIGTERM and SIGINT are written to. Set once, before the
/// handlers that read it are installed; only those handlers read it afterwards.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// SIGTERM and SIGINT, caught from the moment this is created: `serve` creates it before
/// it starts anything, so a signal that arrives while the server is starting (or just
/// after it logs `listening`) is kept and ends ``wait()`` at once.
///
/// A handler writes the signal's number to a pipe (the self-pipe trick: `write` is
/// async-signal-safe), whatever thread the kernel delivers it to. Two earlier designs lost
/// signals: dispatch sources installed after `listening` missed a SIGTERM sent as that line
/// appeared (2 in 100 tries; a CI run hung), and dispatch sources installed first still
/// missed one now and then in loaded test runs — on Linux they read a signalfd, which sees
/// a signal only if every thread blocks it, and the pool's and the engine's threads did not.
final class ShutdownSignal: Sendable {
    private let readEnd: Int32

    /// Installs the handlers.
    init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // children (pg_ctl) must not hold it
        readEnd = ends[0]
        signalPipeWriteEnd = ends[1]
        for number in [SIGTERM, SIGINT] {
            signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
        }
    }

    /// Returns the first signal received since ``init()``, waiting for one if none came yet
    /// (on a thread of its own: the read blocks).
    func wait() async -> Int32 {
        let readEnd = readEnd
        let number = try? await BlockingWork.run(name: "signals") { () -> Int32 in
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { return Int32(byte) }
                if count < 0 && errno == EINTR { continue }
                return SIGTERM  // the pipe cannot close while we hold both ends
            }
        }
        return number ?? SIGTERM
    }
}
