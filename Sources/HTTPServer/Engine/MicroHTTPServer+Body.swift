import CMicroHTTPD
import Foundation

/// Request bodies (in memory, or spooled to a file on routes whose ``Reception`` says so)
/// and response bodies (from memory, or from a file), on the engine thread that owns the
/// connection.
extension MicroHTTPServer {
    /// Opens the exchange's spool when its route spools bodies (after its admission, so a
    /// refused request never writes a byte).
    func openSpool(_ exchange: Exchange) {
        guard exchange.spooled else { return }
        exchange.spool = BodySpool(directory: configuration.spoolDirectory)
    }

    /// Takes one piece of the body.
    func receive(_ exchange: Exchange, _ data: UnsafePointer<CChar>?, _ size: UnsafeMutablePointer<Int>) -> MHD_Result {
        let count = size.pointee
        size.pointee = 0
        exchange.receivedBytes += count
        if exchange.receivedBytes > exchange.maxBodyBytes {
            // Keep reading and discarding so the client can read our 413 (closing with
            // unread input would reset the connection), up to a bound.
            exchange.body = Data()
            return exchange.receivedBytes > Self.discardLimit(exchange.maxBodyBytes) ? .NO : .YES
        }
        guard let data else { return .YES }
        if let spool = exchange.spool {
            spool.write(data, count: count)
        } else {
            exchange.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count)
        }
        return .YES
    }

    /// The answer to a body that was too large, or could not be spooled; `nil` to go on.
    func bodyRefusal(_ exchange: Exchange) -> HTTPResponse? {
        if exchange.receivedBytes > exchange.maxBodyBytes { return Self.bodyTooLarge(exchange.maxBodyBytes) }
        if let spool = exchange.spool, spool.failed {
            return .error(status: 507, code: TransportErrorCodes.insufficientStorage, message: "The server could not store the request body.")
        }
        if exchange.spool == nil, exchange.spooled {
            return .error(status: 507, code: TransportErrorCodes.insufficientStorage, message: "The server could not store the request body.")
        }
        return nil
    }

    /// How much of an oversized body is read (and dropped) before the connection is simply
    /// closed: enough for ordinary clients to see the 413, bounded against slow floods.
    static func discardLimit(_ limit: Int) -> Int { limit + max(limit, 64 << 10) }

    static func bodyTooLarge(_ limit: Int) -> HTTPResponse {
        .error(status: 413, code: TransportErrorCodes.bodyTooLarge, message: "The request body exceeds \(limit) bytes.")
    }

    /// libmicrohttpd's response: the body copied from memory, or read from the file as it
    /// is sent (libmicrohttpd closes the descriptor). `nil` when the file cannot be opened.
    static func engineResponse(_ response: HTTPResponse) -> OpaquePointer? {
        if let file = response.file {
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            guard let made = MHD_create_response_from_fd_at_offset64(UInt64(file.length), descriptor, UInt64(file.offset)) else {
                close(descriptor)
                return nil
            }
            return made
        }
        // Read in place: libmicrohttpd copies the bytes (MUST_COPY) and never writes them,
        // so the pointer's mutability is only its C signature's. `withUnsafeMutableBytes`
        // on a copy of the body copied it first (Data is copy-on-write and the response
        // still held it): a second malloc and memmove of every body, 1.2 % of a Top 10
        // request's server CPU (perf; 6 KB).
        return response.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
    }

    /// A file removed between the handler's look and the send.
    static let fileGone = HTTPResponse.error(status: 404, code: TransportErrorCodes.notFound, message: "The file is gone.")
}
