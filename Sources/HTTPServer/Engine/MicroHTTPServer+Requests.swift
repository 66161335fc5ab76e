import CMicroHTTPD
import Foundation
import Synchronization

/// The request path on engine threads: early refusals, the request value, the hand-off to
/// a task, admission of a body by its head, and queueing the answer.
extension MicroHTTPServer {

    func earlyRejection(connection: OpaquePointer, exchange: Exchange) -> HTTPResponse? {
        if draining.load(ordering: .relaxed) { return Self.shuttingDown }
        guard HTTPMethod.known.contains(exchange.method) else { return Self.methodNotImplemented }
        let head = RequestHead(connection)
        if let refusal = head.framingRefusal { return refusal }
        if head.fieldBytes > configuration.maxHeaderBytes {
            return .error(status: 431, code: TransportErrorCodes.headersTooLarge, message: "Request header fields exceed \(configuration.maxHeaderBytes) bytes.")
        }
        var urlBytes = exchange.path.utf8.count
        ConnectionValues.forEach(connection, .GET_ARGUMENT_KIND) { name, value in urlBytes += name.utf8.count + value.utf8.count + 2 }
        if urlBytes > configuration.maxURLBytes {
            return .error(status: 414, code: TransportErrorCodes.uriTooLong, message: "The request target exceeds \(configuration.maxURLBytes) bytes.")
        }
        if let length = ConnectionValues.header(connection, "Content-Length").flatMap(Int.init), length > Self.discardLimit(exchange.maxBodyBytes) {
            return Self.bodyTooLarge(exchange.maxBodyBytes)
        }
        return nil
    }

    func makeRequest(connection: OpaquePointer, exchange: Exchange) -> HTTPRequest {
        var headers = HTTPHeaders()
        ConnectionValues.forEach(connection, .HEADER_KIND) { name, value in headers.add(name, value) }
        var query: [String: String] = [:]
        ConnectionValues.forEach(connection, .GET_ARGUMENT_KIND) { name, value in query[name] = value }
        var request = HTTPRequest(method: exchange.method, path: exchange.path, query: query, headers: headers,
                                  body: exchange.body, requestID: exchange.requestID, remoteAddress: exchange.peer)
        request.bodyFile = exchange.spool.map { SpooledFile(path: $0.path, bytes: $0.bytes) }
        // Only reads may be dropped when their client leaves (the App's AbandonedReads):
        // a write's check would never be asked, so none is made for it.
        if exchange.method == "GET" || exchange.method == "HEAD" {
            request.clientHasLeft = { [weak self] in self?.clientHasLeft(exchange) ?? true }
        }
        return request
    }

    /// Whether the peer of a dispatched exchange has closed its side: a peek of one byte
    /// that reads end-of-file (or a reset). A suspended connection is not watched by
    /// libmicrohttpd, so without asking, a request whose client left runs to the end.
    /// Only while the exchange is unanswered, under its own lock: its completion (after
    /// which the socket may be closed and its number reused) takes that lock first; and
    /// never once shutdown has closed the gate.
    func clientHasLeft(_ exchange: Exchange) -> Bool {
        let answer = resumes.ifOpen {
            exchange.whilePending {
                let socket = market09_connection_fd(exchange.connection)
                guard socket >= 0 else { return false }
                var byte: UInt8 = 0
                let read = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
                if read > 0 { return false }
                if read == 0 { return true }
                return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
            }
        }
        return answer.flatMap { $0 } ?? true
    }

    func dispatch(_ exchange: Exchange, _ work: @escaping @Sendable () async -> HTTPResponse) {
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
    func admit(_ exchange: Exchange, _ head: HTTPRequest, _ admission: @escaping Reception.Admission) {
        exchange.phase = .admitting
        state.withLock { $0.inFlight[ObjectIdentifier(exchange)] = exchange }
        MHD_suspend_connection(exchange.connection)
        Task(executorPreference: executor) {
            // The responder's admissions map their own errors; a throw here is a refusal all the same.
            let refusal: HTTPResponse?
            do { refusal = try await admission(head) } catch {
                refusal = .error(status: 500, code: TransportErrorCodes.internalError, message: "An internal error occurred.")
            }
            if let refusal {
                self.finish(exchange, refusal)
            } else {
                _ = self.resumes.ifOpen { exchange.admit { MHD_resume_connection(exchange.connection) } }
            }
        }
    }

    /// Stores the response and resumes the connection, unless the exchange was already
    /// answered or shutdown has closed the gate (resuming after `MHD_stop_daemon` is
    /// fatal). Returns whether this call answered the exchange. Takes no lock of the
    /// server's: answers from every pool thread resume their connections side by side.
    @discardableResult
    func finish(_ exchange: Exchange, _ response: HTTPResponse) -> Bool {
        resumes.ifOpen { exchange.complete(with: response) { MHD_resume_connection(exchange.connection) } } ?? false
    }

    func queue(_ response: HTTPResponse, for exchange: Exchange) -> MHD_Result {
        deadlines.requestReceived(exchange.connection)
        exchange.phase = .answered
        exchange.status = response.status
        exchange.errorCode = response.errorCode
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
