import CMicroHTTPD
import Foundation
import Synchronization

/// Total-time limits on receiving a request, which libmicrohttpd does not have: its
/// timeout counts inactivity only, so a client sending a byte every few seconds kept a
/// connection (one of its per-address slots) forever.
///
/// Each connection gets a deadline: its request head must be complete within
/// `headerTimeout` of the connection's start (or, on keep-alive, of the previous response
/// plus the idle timeout), and its body within `bodyTimeout` of the head. While the
/// application handles a request there is no deadline. A watchdog task shuts down the
/// socket of every overdue connection; libmicrohttpd then sees the end of input and closes
/// the connection itself (we never close its descriptor).
final class RequestDeadlines: Sendable {
    private struct Tracked {
        let descriptor: Int32
        var deadline: ContinuousClock.Instant?
    }

    private let headerTimeout: Duration
    private let bodyTimeout: Duration
    private let idleTimeout: Duration
    /// Keyed by the connection's address. Entries are removed in libmicrohttpd's "closed"
    /// notification, which comes before it closes the descriptor, and the watchdog shuts
    /// sockets down under this lock: a descriptor number reused by a later connection is
    /// never shut down by mistake.
    private let tracked = Mutex<[Int: Tracked]>([:])
    private let watchdog = Mutex<Task<Void, Never>?>(nil)

    init(configuration: HTTPServerConfiguration) {
        headerTimeout = .seconds(configuration.headerTimeoutSeconds)
        bodyTimeout = .seconds(configuration.bodyTimeoutSeconds)
        idleTimeout = .seconds(configuration.idleTimeoutSeconds)
    }

    /// Starts checking deadlines every `interval`.
    func start(interval: Duration = .milliseconds(250)) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self?.enforce(now: .now)
            }
        }
        watchdog.withLock { $0 = task }
    }

    /// Stops checking.
    func stop() {
        watchdog.withLock { $0?.cancel(); $0 = nil }
    }

    /// A connection was accepted: its first head is due.
    func opened(_ connection: OpaquePointer) {
        let descriptor = market09_connection_fd(connection)
        guard descriptor >= 0 else { return }
        tracked.withLock { $0[Self.key(connection)] = Tracked(descriptor: descriptor, deadline: .now + headerTimeout) }
    }

    /// A request head arrived: its body is due.
    func headReceived(_ connection: OpaquePointer) {
        set(connection, .now + bodyTimeout)
    }

    /// The request is complete and with the application: no deadline.
    func requestReceived(_ connection: OpaquePointer) {
        set(connection, nil)
    }

    /// The response was sent: the next head on this connection is due after the idle time.
    func responded(_ connection: OpaquePointer) {
        set(connection, .now + idleTimeout + headerTimeout)
    }

    /// libmicrohttpd is closing the connection.
    func closed(_ connection: OpaquePointer) {
        _ = tracked.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// Shuts down every overdue connection; returns how many.
    @discardableResult
    func enforce(now: ContinuousClock.Instant) -> Int {
        tracked.withLock { tracked in
            var overdue = 0
            for (key, entry) in tracked {
                guard let deadline = entry.deadline, deadline < now else { continue }
                shutdown(entry.descriptor, Int32(SHUT_RDWR))
                tracked[key]?.deadline = nil
                overdue += 1
            }
            return overdue
        }
    }

    private func set(_ connection: OpaquePointer, _ deadline: ContinuousClock.Instant?) {
        tracked.withLock { $0[Self.key(connection)]?.deadline = deadline }
    }

    private static func key(_ connection: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(connection)) }
}
