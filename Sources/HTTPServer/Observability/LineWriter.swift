import Foundation

/// Log lines on their way to a file descriptor (standard error): written at once, or held
/// for up to ``holdFor`` and written with the lines after them in one `write(2)`.
///
/// Held lines are the access log's trade, nginx's `access_log … buffer= flush=`: under
/// load one `write(2)` carries hundreds of lines instead of one (the per-line `write(2)`
/// was 7.5 % of `/health`'s server CPU in `perf`); what a crash can lose is
/// the lines of the last ``holdFor``. Lines are written in the order they were handed
/// over whichever way they go, and everything held is written before the process exits
/// (`atexit`) and before any line written at once (a warning after a request is never
/// ahead of that request's line).
///
/// Memory is bounded: a caller that finds ``batchLimit`` bytes held writes them itself,
/// and while a write is stalled (a full pipe) callers wait for it, as a direct write would.
final class LineWriter: @unchecked Sendable {
    // @unchecked: every mutable field is read and written with `condition` locked.

    /// Standard error's writer: one per process, so lines of every logger keep their order.
    static let standardError = LineWriter(descriptor: 2)

    /// How long a held line may wait for company.
    static let holdFor = Duration.milliseconds(20)
    /// Held bytes at which the caller writes them instead of waiting for the writer thread
    /// (a 20 ms hold at 50 k requests/s is ~300 KB of lines).
    static let batchLimit = 512 << 10

    private let descriptor: Int32
    private let condition = NSCondition()
    private var held: [UInt8] = []
    /// A batch is in `write(2)`: the next one waits, so batches never overtake each other.
    private var writing = false
    private var writerStarted = false
    /// The writer thread has been woken for the lines now held (no more signals needed).
    private var writerAwake = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Holds `line` (a newline is added) for the writer thread.
    func hold(_ line: [UInt8]) {
        condition.lock()
        held.append(contentsOf: line)
        held.append(UInt8(ascii: "\n"))
        if held.count >= Self.batchLimit {
            writeHeldLocked()
        } else if !writerAwake {
            writerAwake = true
            startWriterLocked()
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Writes everything held and then `line` (a newline is added), before returning.
    func write(_ line: [UInt8]) {
        condition.lock()
        held.append(contentsOf: line)
        held.append(UInt8(ascii: "\n"))
        writeHeldLocked()
        condition.unlock()
    }

    /// Writes everything held before returning.
    func flush() {
        condition.lock()
        writeHeldLocked()
        condition.unlock()
    }

    /// Takes the held bytes and writes them with the lock released, after any batch
    /// already being written.
    private func writeHeldLocked() {
        while writing { condition.wait() }
        guard !held.isEmpty else { return }
        var batch: [UInt8] = []
        swap(&batch, &held)
        writing = true
        condition.unlock()
        Self.writeAll(batch, to: descriptor)
        condition.lock()
        writing = false
        condition.broadcast()
    }

    private func startWriterLocked() {
        guard !writerStarted else { return }
        writerStarted = true
        if descriptor == 2 { atexit { LineWriter.standardError.flush() } }
        let thread = Thread { [self] in runWriter() }
        thread.name = "market09-log"
        thread.start()
    }

    /// The writer thread: asleep until a line is held, then gives it ``holdFor`` to
    /// gather company and writes the batch.
    private func runWriter() {
        while true {
            condition.lock()
            while !writerAwake { condition.wait() }
            condition.unlock()
            let (seconds, attoseconds) = Self.holdFor.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
            condition.lock()
            writerAwake = false
            writeHeldLocked()
            condition.unlock()
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
