import CMicroHTTPD
import Dispatch
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
///
/// The request path only stores into its connection's own atomic (found through
/// libmicrohttpd's socket context): the shared registry is locked once per connection
/// and by the watchdog. (A shared dictionary updated three times per request cost about
/// a tenth of `/health`'s throughput.)
final class RequestDeadlines: Sendable {
    /// One connection's socket and deadline (uptime nanoseconds; 0: none).
    final class Connection: Sendable {
        let descriptor: Int32
        let deadline: Atomic<UInt64>

        init(descriptor: Int32, deadline: UInt64) {
            self.descriptor = descriptor
            self.deadline = Atomic(deadline)
        }
    }

    private let headerTimeout: UInt64
    private let bodyTimeout: UInt64
    private let idleTimeout: UInt64
    /// Open connections. Entries leave in libmicrohttpd's "closed" notification, which
    /// comes before it closes the descriptor, and the watchdog shuts sockets down under
    /// this lock: a descriptor number reused by a later connection is never hit.
    private let open = Mutex<[ObjectIdentifier: Connection]>([:])
    /// The watchdog: a timer on a dispatch queue of its own, not a task: a task waits its
    /// turn on the cooperative pool's two threads (one per core) behind every request and
    /// test in the process, and a loaded test run once left two trickling connections open
    /// for 10 s past a 1 s deadline.
    private let watchdog = Mutex<(any DispatchSourceTimer)?>(nil)

    init(configuration: HTTPServerConfiguration) {
        headerTimeout = UInt64(configuration.headerTimeoutSeconds) * 1_000_000_000
        bodyTimeout = UInt64(configuration.bodyTimeoutSeconds) * 1_000_000_000
        idleTimeout = UInt64(configuration.idleTimeoutSeconds) * 1_000_000_000
    }

    /// Starts checking deadlines every `interval`.
    func start(interval: DispatchTimeInterval = .milliseconds(250)) {
        watchdog.withLock { watchdog in
            watchdog?.cancel()
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "market09.request-deadlines"))
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
            timer.setEventHandler { [weak self] in self?.enforce() }
            timer.resume()
            watchdog = timer
        }
    }

    /// Stops checking.
    func stop() {
        watchdog.withLock { $0?.cancel(); $0 = nil }
    }

    /// A connection was accepted: its first head is due. Returns the pointer to keep as
    /// the connection's socket context (retained until ``closed(_:)``).
    /// Connections the engine has accepted and not yet closed.
    var openCount: Int { open.withLock { $0.count } }

    func opened(_ connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        let descriptor = market09_connection_fd(connection)
        guard descriptor >= 0 else { return nil }
        let tracked = Connection(descriptor: descriptor, deadline: Self.now() + headerTimeout)
        open.withLock { $0[ObjectIdentifier(tracked)] = tracked }
        return Unmanaged.passRetained(tracked).toOpaque()
    }

    /// libmicrohttpd is closing the connection whose socket context is `context`.
    func closed(_ context: UnsafeMutableRawPointer?) {
        guard let context else { return }
        let tracked = Unmanaged<Connection>.fromOpaque(context).takeRetainedValue()
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(tracked)) }
    }

    /// A request head arrived: its body is due.
    func headReceived(_ connection: OpaquePointer) { set(connection, Self.now() + bodyTimeout) }

    /// The request is complete and with the application: no deadline.
    func requestReceived(_ connection: OpaquePointer) { set(connection, 0) }

    /// The response was sent: the next head on this connection is due after the idle time.
    func responded(_ connection: OpaquePointer) { set(connection, Self.now() + idleTimeout + headerTimeout) }

    /// Shuts down every overdue connection; returns how many.
    @discardableResult
    func enforce() -> Int {
        let now = Self.now()
        return open.withLock { open in
            var overdue = 0
            for tracked in open.values {
                let deadline = tracked.deadline.load(ordering: .relaxed)
                guard deadline != 0, deadline < now else { continue }
                shutdown(tracked.descriptor, Int32(SHUT_RDWR))
                tracked.deadline.store(0, ordering: .relaxed)
                overdue += 1
            }
            return overdue
        }
    }

    private func set(_ connection: OpaquePointer, _ deadline: UInt64) {
        guard let context = market09_socket_context(connection) else { return }
        Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().deadline.store(deadline, ordering: .relaxed)
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
