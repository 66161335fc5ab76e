import Foundation
import Synchronization

/// Progress of long work (`seed bulk`, `import`, `import supabase-media`) on stderr: on a
/// terminal a line redrawn every 0.2 s (done/total, rate, rejected so far, ETA); otherwise
/// (a log, CI) a plain line every 5 s and a last one at the end, and nothing at all for
/// work done sooner, so short runs print only their summary. Safe to call from the
/// loading thread (the bulk seeder reports from a pool thread).
final class ProgressReporter: Sendable {
    private struct State {
        var lastLine: Date
        var printed = false
        var lastDone = 0
        /// When `lastDone` was reported, and what the last line printed showed.
        var lastUpdate: Date
        var shownDone: Int?
        var lastRejected: Int?
        /// The counted part is over: a stage line or the end was printed after it.
        var counted = false
        var stages = false
    }

    private let label: String
    private let unit: String
    private let total: Int
    private let terminal: Bool
    private let now: @Sendable () -> Date
    private let write: @Sendable (String) -> Void
    private let started: Date
    private let state: Mutex<State>

    init(label: String, total: Int, unit: String = "rows", terminal: Bool = isatty(STDERR_FILENO) == 1,
         now: @escaping @Sendable () -> Date = Date.init,
         write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.label = label
        self.unit = unit
        self.total = max(1, total)
        self.terminal = terminal
        self.now = now
        self.write = write
        self.started = now()
        self.state = Mutex(State(lastLine: started, lastUpdate: started))
    }

    /// `done` of the total are through, `rejected` of them refused (when the work rejects).
    func update(_ done: Int, rejected: Int? = nil) {
        let at = now()
        let line: String? = state.withLock { state in
            state.lastDone = done
            state.lastRejected = rejected
            state.lastUpdate = at
            guard at.timeIntervalSince(state.lastLine) >= (terminal ? 0.2 : 5) else { return nil }
            state.lastLine = at
            state.printed = true
            state.shownDone = done
            return describe(done: done, rejected: rejected, at: at)
        }
        if let line { write(terminal ? "\r" + line + "\u{1B}[K" : line + "\n") }
    }

    /// A one-off line (`5000 rows in one transaction`).
    func note(_ text: String) {
        write("\(label): \(text)\n")
    }

    /// The work moved on to a stage it cannot count (`building 19 indexes`): the counted
    /// part's last line, then this one with the time so far. Printed when progress is shown
    /// at all (a terminal, or work that has run 5 s), so a long silence has a name.
    func stage(_ text: String) {
        let at = now()
        let lines: [String] = state.withLock { state in
            var lines = endCounted(&state)
            guard terminal || state.printed || at.timeIntervalSince(started) >= 5 else { return lines }
            state.printed = true
            state.stages = true
            lines.append("\(label): \(text) (\(Int(at.timeIntervalSince(started))) s so far)\n")
            return lines
        }
        lines.forEach(write)
    }

    /// Ends the progress: the last line when any was printed, and the total time after stages.
    func finish() {
        let at = now()
        let lines: [String] = state.withLock { state in
            var lines = endCounted(&state)
            if state.stages { lines.append("\(label): done in \(Int(at.timeIntervalSince(started))) s\n") }
            return lines
        }
        lines.forEach(write)
    }

    /// The counted part's last line (at its last update), once, when any line was printed
    /// and a log does not already end with it.
    private func endCounted(_ state: inout State) -> [String] {
        guard !state.counted else { return [] }
        state.counted = true
        guard state.printed, terminal || state.shownDone != state.lastDone else { return [] }
        let line = describe(done: state.lastDone, rejected: state.lastRejected, at: state.lastUpdate)
        return [terminal ? "\r" + line + "\u{1B}[K\n" : line + "\n"]
    }

    private func describe(done: Int, rejected: Int?, at: Date) -> String {
        let rate = Double(done) / max(0.001, at.timeIntervalSince(started))
        let eta = rate > 0 ? Int((Double(max(0, total - done)) / rate).rounded(.up)) : 0
        let rejectedPart = rejected.map { ", \($0) rejected" } ?? ""
        return "\(label): \(done)/\(total) \(unit), \(Int(rate)) \(unit)/s\(rejectedPart), ETA \(eta) s"
    }
}

/// A failure of a command worth one plain line (no type names, no error domains).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
