import Foundation
@testable import Server
import Synchronization
import Testing

/// What long work prints while it runs, on a clock the test moves.
@Suite struct ProgressReporterTests {
    /// A clock and a sink the reporter is handed.
    private final class Recorder: Sendable {
        let time = Mutex(Date(timeIntervalSince1970: 0))
        let written = Mutex<[String]>([])
        func advance(_ seconds: TimeInterval) { time.withLock { $0.addTimeInterval(seconds) } }
        func reporter(terminal: Bool, total: Int) -> ProgressReporter {
            ProgressReporter(label: "posts", total: total, terminal: terminal, now: { self.time.withLock { $0 } },
                             write: { text in self.written.withLock { $0.append(text) } })
        }
    }

    @Test func inALogALineEveryFiveSecondsAndALastOne() {
        let recorder = Recorder()
        let progress = recorder.reporter(terminal: false, total: 10_000)
        for done in stride(from: 1_000, through: 10_000, by: 1_000) {
            recorder.advance(2)
            progress.update(done, rejected: done / 1_000)
        }
        progress.finish()
        #expect(recorder.written.withLock { $0 } == [
            "posts: 3000/10000 rows, 500 rows/s, 3 rejected, ETA 14 s\n",
            "posts: 6000/10000 rows, 500 rows/s, 6 rejected, ETA 8 s\n",
            "posts: 9000/10000 rows, 500 rows/s, 9 rejected, ETA 2 s\n",
            "posts: 10000/10000 rows, 500 rows/s, 10 rejected, ETA 0 s\n",
        ])
    }

    @Test func shortWorkPrintsNothingSoItsSummaryStandsAlone() {
        let recorder = Recorder()
        let progress = recorder.reporter(terminal: false, total: 100)
        recorder.advance(1)
        progress.update(100, rejected: 0)
        progress.finish()
        #expect(recorder.written.withLock { $0 }.isEmpty)
    }

    @Test func onATerminalOneLineRedrawsItself() {
        let recorder = Recorder()
        let progress = recorder.reporter(terminal: true, total: 4)
        for done in 1...4 {
            recorder.advance(0.5)
            progress.update(done)
        }
        progress.finish()
        let written = recorder.written.withLock { $0 }
        #expect(written.count == 5 && written.allSatisfy { $0.hasPrefix("\r") && !$0.dropLast().contains("\n") })
        #expect(written.last == "\rposts: 4/4 rows, 2 rows/s, ETA 0 s\u{1B}[K\n")
    }

    /// Stages after the counted rows (index builds) get a line each once progress is shown,
    /// and the end says how long it all took.
    @Test func stagesAfterTheRowsAreNamedWithTheirTime() {
        let recorder = Recorder()
        let progress = recorder.reporter(terminal: false, total: 10_000)
        recorder.advance(6)
        progress.update(10_000)
        recorder.advance(30)
        progress.stage("building 3 indexes")
        recorder.advance(4)
        progress.stage("statistics")
        recorder.advance(1)
        progress.finish()
        #expect(recorder.written.withLock { $0 } == [
            "posts: 10000/10000 rows, 1666 rows/s, ETA 0 s\n",
            "posts: building 3 indexes (36 s so far)\n",
            "posts: statistics (40 s so far)\n",
            "posts: done in 41 s\n",
        ])
    }

    @Test func stagesOfShortWorkPrintNothing() {
        let recorder = Recorder()
        let progress = recorder.reporter(terminal: false, total: 100)
        recorder.advance(1)
        progress.update(100)
        progress.stage("building 3 indexes")
        progress.finish()
        #expect(recorder.written.withLock { $0 }.isEmpty)
    }
}
