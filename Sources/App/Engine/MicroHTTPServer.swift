import CMicroHTTPD
import Data
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
    private struct State {
        var daemon: DaemonHandle?
        var listeningSocket: Int32 = -1
        var port = 0
        var draining = false
        var stopped = false
        var inFlight: [ObjectIdentifier: Exchange] = [:]
    }

    let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let executor: (any TaskExecutor)?
    private let logger: Logger
    private let metrics: Metrics?
    private let state = Mutex(State())
    private let deadlines: RequestDeadlines

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
        let handle: DaemonHandle? = state.withLock { state in
            guard !state.draining, let daemon = state.daemon else { return nil }
            state.draining = true
            return daemon
        }
        guard let handle else { return }
        // Closed only after MHD_stop_daemon, as libmicrohttpd requires of threaded daemons:
        // closed here, its number went to the next server's listening socket while this
        // engine's threads could still accept on it, and that server's clients were
        // answered by this one (tests of two servers saw each other's answers).
        let listening = MHD_quiesce_daemon(handle.daemon)

        await waitForInFlight(until: ContinuousClock.now + gracePeriod)
        let abandoned = state.withLock { state in
            let pending = Array(state.inFlight.values)
            return pending.filter { exchange in finishLocked(&state, exchange, Self.shuttingDown) }.count
        }
        if abandoned > 0 {
            logger.warning("shutdown deadline passed; answered in-flight requests with 503", ["count": .int(abandoned)])
        }
        // Let the engine write the last responses (the completed callback removes them).
        await waitForInFlight(until: ContinuousClock.now + .seconds(2))
        state.withLock { $0.stopped = true }
        deadlines.stop()
        // MHD_stop_daemon joins the engine threads: block a thread of our own, not the pool.
        _ = try? await BlockingWork.run(name: "http-stop") { MHD_stop_daemon(handle.daemon) }
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
    private static let methodNotImplemented: HTTPResponse = {
        var response = HTTPResponse.error(status: 501, code: "method_not_implemented",
                                          message: "The method is not one this server knows (\(HTTPMethod.served.sorted().joined(separator: ", ")) are served).")
        response.headers.set("Connection", "close")
        return response
    }()

    private static let shuttingDown: HTTPResponse = {
        var response = HTTPResponse.error(status: 503, code: "shutting_down", message: "The server is shutting down; retry on another instance.")
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
            exchange.client = market09_client_address(connection).flatMap(ListeningSocket.describe)
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            let reception = HTTPMethod.served.contains(exchange.method) ? responder.reception(method: exchange.method, path: exchange.path) : nil
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
            // Routed once, here: what needs no I/O is answered from this thread.
            switch responder.route(makeRequest(connection: connection, exchange: exchange)) {
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
        state.withLock { state in
            if exchange.phase == .dispatched || exchange.phase == .admitting {
                // The engine gave up on a suspended connection: make sure nobody resumes it.
                _ = exchange.complete(with: Self.shuttingDown)
            }
            state.inFlight[ObjectIdentifier(exchange)] = nil
        }
        exchange.report(completed: termination == .REQUEST_TERMINATED_COMPLETED_OK, logger: logger, metrics: metrics)
    }

    // MARK: - Request path

    private func earlyRejection(connection: OpaquePointer, exchange: Exchange) -> HTTPResponse? {
        if state.withLock({ $0.draining }) { return Self.shuttingDown }
        guard HTTPMethod.known.contains(exchange.method) else { return Self.methodNotImplemented }
        var headerBytes = 0
        ConnectionValues.forEach(connection, .HEADER_KIND) { name, value in headerBytes += name.utf8.count + value.utf8.count + 4 }
        if headerBytes > configuration.maxHeaderBytes {
            return .error(status: 431, code: "headers_too_large", message: "Request header fields exceed \(configuration.maxHeaderBytes) bytes.")
        }
        var urlBytes = exchange.path.utf8.count
        ConnectionValues.forEach(connection, .GET_ARGUMENT_KIND) { name, value in urlBytes += name.utf8.count + value.utf8.count + 2 }
        if urlBytes > configuration.maxURLBytes {
            return .error(status: 414, code: "uri_too_long", message: "The request target exceeds \(configuration.maxURLBytes) bytes.")
        }
        if let length = ConnectionValues.header(connection, "Content-Length").flatMap(Int.init), length > Self.discardLimit(exchange.maxBodyBytes) {
            return Self.bodyTooLarge(exchange.maxBodyBytes)
        }
        return nil
    }

    private func makeRequest(connection: OpaquePointer, exchange: Exchange) -> HTTPRequest {
        var headers = HTTPHeaders()
        ConnectionValues.forEach(connection, .HEADER_KIND) { name, value in headers.add(name, value) }
        var query: [String: String] = [:]
        ConnectionValues.forEach(connection, .GET_ARGUMENT_KIND) { name, value in query[name] = value }
        let remote = market09_client_address(connection).flatMap(ListeningSocket.describe)
        var request = HTTPRequest(method: exchange.method, path: exchange.path, query: query, headers: headers,
                                  body: exchange.body, requestID: exchange.requestID, remoteAddress: remote)
        request.bodyFile = exchange.spool.map { SpooledFile(path: $0.path, bytes: $0.bytes) }
        return request
    }

    private func dispatch(_ exchange: Exchange, _ work: @escaping @Sendable () async -> HTTPResponse) {
        deadlines.requestReceived(exchange.connection)
        exchange.phase = .dispatched
        exchange.body = Data()
        state.withLock { $0.inFlight[ObjectIdentifier(exchange)] = exchange }
        MHD_suspend_connection(exchange.connection)
        Task(executorPreference: executor) {
            self.finish(exchange, await work())
        }
    }

    /// Suspends the connection while the route's admission checks the head in a task;
    /// its verdict resumes it (see the `.admitting` phase of ``handle``).
    private func admit(_ exchange: Exchange, _ head: HTTPRequest, _ admission: @escaping Reception.Admission) {
        exchange.phase = .admitting
        state.withLock { $0.inFlight[ObjectIdentifier(exchange)] = exchange }
        MHD_suspend_connection(exchange.connection)
        Task(executorPreference: executor) {
            // The responder's admissions map their own errors; a throw here is a refusal all the same.
            let refusal: HTTPResponse?
            do { refusal = try await admission(head) } catch {
                refusal = .error(status: 500, code: "internal_error", message: "An internal error occurred.")
            }
            self.state.withLock { state in
                if let refusal {
                    _ = self.finishLocked(&state, exchange, refusal)
                } else if !state.stopped, exchange.admit() {
                    MHD_resume_connection(exchange.connection)
                }
            }
        }
    }

    private func finish(_ exchange: Exchange, _ response: HTTPResponse) {
        state.withLock { state in _ = finishLocked(&state, exchange, response) }
    }

    /// Stores the response and resumes the connection, unless the exchange was already
    /// answered or the engine has stopped (resuming after `MHD_stop_daemon` is fatal).
    /// Returns whether this call answered the exchange.
    @discardableResult
    private func finishLocked(_ state: inout State, _ exchange: Exchange, _ response: HTTPResponse) -> Bool {
        guard !state.stopped, exchange.complete(with: response) else { return false }
        MHD_resume_connection(exchange.connection)
        return true
    }

    func queue(_ response: HTTPResponse, for exchange: Exchange) -> MHD_Result {
        deadlines.requestReceived(exchange.connection)
        exchange.phase = .answered
        exchange.status = response.status
        exchange.route = response.route
        exchange.errorCode = response.errorCode
        exchange.client = response.client ?? exchange.client
        exchange.user = response.user
        exchange.bytes = response.file?.length ?? response.body.count
        guard let mhdResponse = Self.engineResponse(response) else {
            return response.file == nil ? .NO : queue(Self.fileGone, for: exchange)
        }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers {
            MHD_add_response_header(mhdResponse, name, value)
        }
        MHD_add_response_header(mhdResponse, "X-Request-Id", exchange.requestID)
        return MHD_queue_response(exchange.connection, UInt32(response.status), mhdResponse)
    }
}
