import CMicroHTTPD
import Foundation
import Synchronization

/// The state of one request while libmicrohttpd owns its connection.
///
/// Created on the request's first access-handler call and released in the
/// request-completed callback. Fields other than `outcome` are touched only by the
/// engine thread that owns the connection (libmicrohttpd keeps a connection on one
/// thread); `outcome` is shared with the task running the handler and guarded by its mutex.
final class Exchange: @unchecked Sendable {
    enum Phase {
        /// The head is being checked (its route's admission) with the connection
        /// suspended; nothing of the body has been read.
        case admitting
        /// Reading the body.
        case receiving
        /// Handed to the application; the connection is suspended.
        case dispatched
        /// A response was queued.
        case answered
    }

    private enum Outcome {
        case pending
        /// The admission let the request in; back to pending once the engine reads it.
        case admitted
        case completed(HTTPResponse)
        case taken
    }

    /// What the admission decided, as the engine reads it.
    enum Verdict {
        case admitted
        case refused(HTTPResponse)
    }

    let connection: OpaquePointer
    let startedAt: ContinuousClock.Instant
    let method: String
    let path: String
    var requestID: String
    var phase = Phase.receiving
    var body = Data()
    /// Where the body goes instead of ``body`` on a spooled route.
    var spool: BodySpool?
    /// Whether the route spools its body (the spool opens once the head is admitted).
    var spooled = false
    /// The largest body this exchange accepts (its route's, or the server's).
    var maxBodyBytes = 0
    var receivedBytes = 0
    var status = 0
    var errorCode: String?
    /// The route its head matched, carried to the handler (matched once).
    var match: RouteMatch?
    /// What routing and the handler's chain learn for the access log (route, client, user).
    let log = RequestLog()
    /// The socket peer's address, described once per request (the request's, and the log's
    /// client when routing found none behind a trusted proxy).
    var peer: String?
    /// For the access log: the first 256 bytes of `User-Agent`, and the response body's size.
    var userAgent: String?
    var bytes = 0
    private let outcome = Mutex(Outcome.pending)

    init(connection: OpaquePointer, method: String, path: String, requestID: String) {
        self.connection = connection
        self.startedAt = .now
        self.method = method
        self.path = path
        self.requestID = requestID
    }

    /// Stores the response unless one was stored already, and calls `resume` (under this
    /// exchange's lock, so the engine's completion of the connection, which stores a
    /// response first, never meets a resume in progress); `true` when this call stored it.
    func complete(with response: HTTPResponse, resume: () -> Void) -> Bool {
        outcome.withLock { state in
            guard case .pending = state else { return false }
            state = .completed(response)
            resume()
            return true
        }
    }

    /// Records that the admission let the request in and calls `resume` as
    /// ``complete(with:resume:)`` does; `true` when this call recorded it.
    func admit(resume: () -> Void) -> Bool {
        outcome.withLock { state in
            guard case .pending = state else { return false }
            state = .admitted
            resume()
            return true
        }
    }

    /// `body`'s result while no response is stored (the connection is the request's
    /// still), under the lock that storing one takes; `nil` once one is.
    func whilePending<T>(_ body: () -> T) -> T? {
        outcome.withLock { state in
            guard case .pending = state else { return nil }
            return body()
        }
    }

    /// The admission's verdict once (a refusal is the stored response), or `nil` while
    /// it is still running.
    func takeVerdict() -> Verdict? {
        outcome.withLock { state in
            switch state {
            case .admitted:
                state = .pending
                return .admitted
            case .completed(let response):
                state = .taken
                return .refused(response)
            case .pending, .taken:
                return nil
            }
        }
    }

    /// Takes the stored response once.
    func takeResponse() -> HTTPResponse? {
        outcome.withLock { state in
            guard case .completed(let response) = state else { return nil }
            state = .taken
            return response
        }
    }
}

extension Exchange {
    /// Writes the access-log line and counts the request, once the engine is done with it
    /// (`completed`: the whole answer was sent, rather than the connection lost).
    func report(completed: Bool, logger: Logger, metrics: Metrics?) {
        let elapsed = (ContinuousClock.now - startedAt).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        if let metrics {
            metrics.recordRequest(route: log.route ?? "unmatched", method: method, status: status, seconds: seconds)
            if let errorCode { metrics.increment(.errors, errorCode) }
        }
        // 5xx are the server's failures: at error, so an alert can watch the level alone.
        logger.log(status >= 500 ? .error : .info, "request", [
            "method": .string(HTTPMethod.label(method)),
            "path": .string(path),
            "route": .string(log.route ?? "unmatched"),
            "status": .int(status),
            "bytes": .int(bytes),
            "duration_ms": .double((seconds * 1_000_000).rounded() / 1000),
            "client": (log.client ?? peer).map(Logger.Value.string) ?? .absent,
            "user": log.user.map(Logger.Value.string) ?? .absent,
            "user_agent": userAgent.map(Logger.Value.string) ?? .absent,
            "request_id": .string(requestID),
            "completed": completed ? "ok" : "aborted",
        ])
    }
}
