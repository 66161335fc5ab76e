import Foundation
import HTTPServer
import Synchronization

/// Collects log lines in memory so tests can assert on what was logged.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at `debug` that writes into this capture.
    public var logger: Logger {
        Logger(minimumLevel: .debug) { [self] line in self.lines.withLock { $0.append(line) } }
    }

    /// Every line so far, each parsed as a JSON object.
    public func entries() -> [[String: any Sendable]] {
        lines.withLock { $0 }.compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: any Sendable]
        }
    }

    /// Lines whose `message` equals `message`.
    public func entries(message: String) -> [[String: any Sendable]] {
        entries().filter { $0["message"] as? String == message }
    }
}
