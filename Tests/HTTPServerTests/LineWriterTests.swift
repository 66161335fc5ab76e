import Foundation
@testable import HTTPServer
import Testing

/// The log's writer against a real pipe: what a reader of standard error sees.
@Suite struct LineWriterTests {
    /// A pipe whose read end is drained by a thread of its own (a full pipe would stall
    /// the writer), with everything read so far.
    private final class Pipe: @unchecked Sendable {
        // @unchecked: `bytes` is only touched with `lock` held; the descriptors are fixed.
        let readEnd: Int32
        let writeEnd: Int32
        private let lock = NSLock()
        private var bytes: [UInt8] = []

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            readEnd = ends[0]
            writeEnd = ends[1]
            Thread.detachNewThread { [self] in
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(readEnd, &chunk, chunk.count)
                    if count <= 0 { break }
                    lock.lock(); bytes.append(contentsOf: chunk[0..<count]); lock.unlock()
                }
                close(readEnd)
            }
        }

        var lines: [String] {
            lock.lock(); defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }

        /// The lines once `count` of them (and a final newline) arrived, or what came in 10 s.
        func waitForLines(_ count: Int) async throws -> [String] {
            for _ in 0..<1000 {
                let lines = self.lines
                if lines.count > count { return Array(lines.dropLast()) }
                try await Task.sleep(for: .milliseconds(10))
            }
            return Array(lines.dropLast())
        }

        deinit {
            close(writeEnd)
        }
    }

    @Test func aHeldLineIsWrittenWithoutAnotherLineAfterIt() async throws {
        let pipe = try Pipe()
        let writer = LineWriter(descriptor: pipe.writeEnd)
        writer.hold(Array(#"{"message":"request"}"#.utf8))
        #expect(try await pipe.waitForLines(1) == [#"{"message":"request"}"#])
    }

    @Test func aLineWrittenAtOnceFollowsEveryHeldLineAndIsThereOnReturn() throws {
        let pipe = try Pipe()
        let writer = LineWriter(descriptor: pipe.writeEnd)
        for index in 0..<100 { writer.hold(Array("held \(index)".utf8)) }
        writer.write(Array("warning".utf8))
        // No wait: `write` returns after its bytes are in the pipe; the reader thread may
        // still be reading them, so give it until they are all there.
        var lines: [String] = []
        for _ in 0..<1000 where lines.count < 102 {
            lines = pipe.lines
            usleep(1000)
        }
        #expect(lines.dropLast() == ArraySlice((0..<100).map { "held \($0)" } + ["warning"]))
    }

    @Test func flushWritesWhatIsHeldBeforeReturning() throws {
        let pipe = try Pipe()
        let writer = LineWriter(descriptor: pipe.writeEnd)
        writer.hold(Array("one".utf8))
        writer.hold(Array("two".utf8))
        writer.flush()
        // Written before flush returned (the hold is 20 ms): in the pipe or already read.
        var readable: Int32 = 0
        _ = ioctl(pipe.readEnd, UInt(FIONREAD), &readable)
        let read = pipe.lines.joined(separator: "\n").utf8.count
        #expect(Int(readable) + read == "one\ntwo\n".utf8.count)
    }

    /// Many threads holding and writing at once: every line arrives once, whole, and each
    /// thread's lines in the order it handed them over, through batches larger than
    /// ``LineWriter/batchLimit`` and a pipe the reader drains slower than they come.
    @Test func linesOfManyThreadsArriveWholeOnceAndInEachThreadsOrder() async throws {
        let pipe = try Pipe()
        let writer = LineWriter(descriptor: pipe.writeEnd)
        let threads = 4, perThread = 5_000
        let padding = String(repeating: "x", count: 100)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for index in 0..<perThread {
                        let line = Array("\(thread) \(index) \(padding)".utf8)
                        if index % 500 == 499 { writer.write(line) } else { writer.hold(line) }
                    }
                }
            }
        }
        let lines = try await pipe.waitForLines(threads * perThread)
        #expect(lines.count == threads * perThread)
        var next = [Int](repeating: 0, count: threads)
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let thread = Int(parts[0]), let index = Int(parts[1]), parts[2] == padding else {
                Issue.record("a torn line: \(line.prefix(60))")
                return
            }
            #expect(index == next[thread], "thread \(thread)'s lines out of order")
            next[thread] = index + 1
        }
        #expect(next == [Int](repeating: perThread, count: threads))
    }
}

@Suite struct RequestIDTests {
    @Test func generatedIdentifiersAreThirtyTwoHexCharactersAndDistinct() {
        let identifiers = (0..<20_000).map { _ in RequestID.generate() }
        #expect(identifiers.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) } })
        #expect(Set(identifiers).count == identifiers.count)
    }

    /// Consecutive identifiers share no visible structure (a client seeing two cannot
    /// tell how many requests came between): on average half their bits differ.
    @Test func consecutiveIdentifiersLookUnrelated() {
        let identifiers = (0..<1_000).map { _ in RequestID.generate() }
        var differing = 0
        for (first, second) in zip(identifiers, identifiers.dropFirst()) {
            let a = UInt64(first.prefix(16), radix: 16)!, b = UInt64(second.prefix(16), radix: 16)!
            let c = UInt64(first.suffix(16), radix: 16)!, d = UInt64(second.suffix(16), radix: 16)!
            differing += (a ^ b).nonzeroBitCount + (c ^ d).nonzeroBitCount
        }
        let mean = Double(differing) / Double(identifiers.count - 1)
        #expect((54...74).contains(mean), "mean differing bits \(mean) of 128")
    }
}
