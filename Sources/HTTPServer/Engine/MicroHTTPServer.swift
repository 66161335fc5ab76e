import CMicroHTTPD
import Foundation
import Synchronization

/// The HTTP transport: libmicrohttpd parses HTTP on its own threads (epoll, a small thread
/// pool); this type turns each complete request into an ``HTTPRequest``, hands it to an
/// `async` ``HTTPResponder`` while the connection is suspended, and queues the response
/// when the connection is resumed. No engine thread ever waits for a handler.
///
/// Limits on URL, header and body size are enforced here so that their answers are JSON;
/// far larger input is rejected by the engine itself before it reaches us.
public final class MicroHTTPServer: Sendable {
    struct State {
        var daemon: DaemonHandle?
        var listeningSocket: Int32 = -1
        var port = 0
        var inFlight: [ObjectIdentifier: Exchange] = [:]
    }

    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let executor: (any TaskExecutor)?
    let logger: Logger
    let metrics: Metrics?
    let state = Mutex(State())
    /// Set once by ``shutdown(gracePeriod:)``; read by every request's first step, so not
    /// behind `state`'s lock.
    let draining = Atomic<Bool>(false)
    /// Resumes of suspended connections, open until the engine stops.
    let resumes = ResumeGate()
    let deadlines: RequestDeadlines

    /// Creates a server; nothing is bound until ``start()``. Answered requests are counted
    /// in `metrics`, which also reads the in-flight count.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger, metrics: Metrics? = nil,
                executor: (any TaskExecutor)? = nil) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.metrics = metrics
        self.executor = executor
        self.deadlines = RequestDeadlines(configuration: configuration)
    }

    /// The bound port (useful with `port: 0`); 0 before ``start()``.
    public var port: Int { state.withLock { $0.port } }

    /// Connections accepted and not yet closed.
    public var connectionCount: Int { deadlines.openCount }

    /// Requests handed to the application whose response has not been sent yet.
    public var inFlightCount: Int { state.withLock { $0.inFlight.count } }

    /// Binds the socket and starts the engine threads.
    public func start() throws {
        signal(SIGPIPE, SIG_IGN)
        metrics?.addCollector { [weak self] text in
            text.gauge("market09_http_requests_in_flight", help: "Requests handed to a handler and not yet answered.", Double(self?.inFlightCount ?? 0))
        }
        let (descriptor, boundPort) = try ListeningSocket.bind(host: configuration.host, port: configuration.port)
        // Our own limits answer in JSON; the engine's per-connection memory must hold a
        // request that exceeds them by a little, so we see it first. No more than that:
        // libmicrohttpd zeroes the whole area before every request on a connection (a
        // 64 KB area cost 11 % of the CPU of /health).
        let memory = max(16 << 10, 2 * (configuration.maxHeaderBytes + configuration.maxURLBytes))
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(descriptor), ptr_value: nil),
            MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: configuration.maxConnectionsPerAddress, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.idleTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: memory, ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self), ptr_value: Unmanaged.passUnretained(self).toOpaque()),
            MHD_OptionItem(option: .UNESCAPE_CALLBACK, value: unsafeBitCast(unescapeKeepingNUL, to: Int.self), ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_CONNECTION, value: unsafeBitCast(connectionNotified, to: Int.self), ptr_value: Unmanaged.passUnretained(self).toOpaque()),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let daemon = options.withUnsafeMutableBufferPointer { buffer in
            market09_start_daemon(flags, accessHandler, Unmanaged.passUnretained(self).toOpaque(), buffer.baseAddress)
        }
        guard let daemon else {
            close(descriptor)
            throw ListeningSocket.Failure(description: "libmicrohttpd could not start on \(configuration.host):\(boundPort)")
        }
        // The daemon owns this object until shutdown (see DaemonHandle.owner).
        let owner = Unmanaged.passRetained(self)
        state.withLock { state in
            state.daemon = DaemonHandle(daemon, owner: owner)
            state.listeningSocket = descriptor
            state.port = boundPort
        }
        deadlines.start()
    }

    /// Stops accepting connections, lets in-flight requests finish for up to `gracePeriod`,
    /// answers any still running with 503, then stops the engine threads.
    public func shutdown(gracePeriod: Duration) async {
        guard let handle = state.withLock({ $0.daemon }),
              draining.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else { return }
        // Closed only after MHD_stop_daemon, as libmicrohttpd requires of threaded daemons:
        // closed here, its number went to the next server's listening socket while this
        // engine's threads could still accept on it, and that server's clients were
        // answered by this one (tests of two servers saw each other's answers).
        let listening = MHD_quiesce_daemon(handle.daemon)

        await waitForInFlight(until: ContinuousClock.now + gracePeriod)
        let pending = state.withLock { Array($0.inFlight.values) }
        let abandoned = pending.filter { exchange in finish(exchange, Self.shuttingDown) }.count
        if abandoned > 0 {
            logger.warning("shutdown deadline passed; answered in-flight requests with 503", ["count": .int(abandoned)])
        }
        // Let the engine write the last responses (the completed callback removes them).
        await waitForInFlight(until: ContinuousClock.now + .seconds(2))
        await resumes.close()
        deadlines.stop()
        // MHD_stop_daemon joins the engine threads: block a thread of our own, not the pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                MHD_stop_daemon(handle.daemon)
                done.resume()
            }
        }
        if listening >= 0 { close(listening) }
        handle.owner.release()
    }

    private func waitForInFlight(until deadline: ContinuousClock.Instant) async {
        while inFlightCount > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// RFC 9110's answer to a method the server does not know (not 405: no route could
    /// ever allow it).
    static let methodNotImplemented: HTTPResponse = {
        var response = HTTPResponse.error(status: 501, code: TransportErrorCodes.methodNotImplemented,
                                          message: "The method is not one this server knows (\(HTTPMethod.served.sorted().joined(separator: ", ")) are served).")
        response.headers.set("Connection", "close")
        return response
    }()

    static let shuttingDown: HTTPResponse = {
        var response = HTTPResponse.error(status: 503, code: TransportErrorCodes.shuttingDown, message: "The server is shutting down; retry on another instance.")
        response.headers.set("Connection", "close")
        return response
    }()

    // MARK: - Engine callbacks (engine threads)

    func handle(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = context.pointee else {
            deadlines.headReceived(connection)
            let requestID = RequestID.accept(ConnectionValues.header(connection, "X-Request-Id")) ?? RequestID.generate()
            let exchange = Exchange(connection: connection, method: String(cString: method), path: String(cString: url), requestID: requestID)
            exchange.userAgent = ConnectionValues.header(connection, "User-Agent").map { String(decoding: $0.utf8.prefix(256), as: UTF8.self) }
            exchange.peer = market09_client_address(connection).flatMap(ListeningSocket.describe)
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            // Matched once, here: the match decides how the body is received, and routes it.
            if HTTPMethod.served.contains(exchange.method) {
                let match = responder.match(method: exchange.method, path: exchange.path)
                exchange.match = match
                exchange.log.route = match.template
            }
            let reception = exchange.match.flatMap(responder.reception(for:))
            exchange.maxBodyBytes = reception?.maxBodyBytes ?? configuration.maxBodyBytes
            exchange.spooled = reception?.spooled ?? false
            if let rejection = earlyRejection(connection: connection, exchange: exchange) {
                return queue(rejection, for: exchange)
            }
            if let admission = reception?.admission {
                admit(exchange, makeRequest(connection: connection, exchange: exchange), admission)
                return .YES
            }
            openSpool(exchange)
            return .YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        switch exchange.phase {
        case .admitting:
            // Resumed: libmicrohttpd calls again as for a new head, before reading any of
            // the body (and before sending 100 Continue to a client that expects it).
            guard let verdict = exchange.takeVerdict() else { return .YES }
            state.withLock { _ = $0.inFlight.removeValue(forKey: ObjectIdentifier(exchange)) }
            switch verdict {
            case .refused(var response):
                // The body is never read: the connection cannot carry another request.
                response.headers.set("Connection", "close")
                return queue(response, for: exchange)
            case .admitted:
                exchange.phase = .receiving
                openSpool(exchange)
                if uploadSize.pointee > 0 { return receive(exchange, uploadData, uploadSize) }
                return .YES
            }
        case .receiving:
            if uploadSize.pointee > 0 { return receive(exchange, uploadData, uploadSize) }
            if let refusal = bodyRefusal(exchange) { return queue(refusal, for: exchange) }
            // What needs no I/O is answered from this thread.
            let match = exchange.match ?? responder.match(method: exchange.method, path: exchange.path)
            switch responder.route(makeRequest(connection: connection, exchange: exchange), match, log: exchange.log) {
            case .answered(let response):
                return queue(response, for: exchange)
            case .handler(let work):
                dispatch(exchange, work)
                return .YES
            }
        case .dispatched:
            guard let response = exchange.takeResponse() else { return .YES }
            return queue(response, for: exchange)
        case .answered:
            return .NO
        }
    }

    func connection(_ connection: OpaquePointer, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ event: MHD_ConnectionNotificationCode) {
        guard let context else { return }
        if event == .CONNECTION_NOTIFY_STARTED {
            context.pointee = deadlines.opened(connection)
        } else {
            deadlines.closed(context.pointee)
            context.pointee = nil
        }
    }

    func completed(connection: OpaquePointer?, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, termination: MHD_RequestTerminationCode) {
        if let connection { deadlines.responded(connection) }
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        if exchange.phase == .dispatched || exchange.phase == .admitting {
            // The engine gave up on a suspended connection: make sure nobody resumes it
            // (nor peeks at its socket) from now on.
            _ = exchange.complete(with: Self.shuttingDown) {}
        }
        state.withLock { _ = $0.inFlight.removeValue(forKey: ObjectIdentifier(exchange)) }
        exchange.report(completed: termination == .REQUEST_TERMINATED_COMPLETED_OK, logger: logger, metrics: metrics)
    }
}
