import Foundation
import Workers

/// One HTTP response as read off the wire.
public struct RawHTTPResponse: Sendable {
    /// The status code.
    public let status: Int
    /// Header fields with lower-cased names, in order.
    public let headers: [(name: String, value: String)]
    /// The body bytes.
    public let body: Data

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name.lowercased() }?.value
    }

    /// The body parsed as a JSON object.
    public func jsonObject() throws -> [String: any Sendable] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: any Sendable] else {
            throw TestEnvironmentError("body is not a JSON object: \(String(decoding: body, as: UTF8.self))")
        }
        return object
    }
}

/// A deliberately small HTTP/1.1 client over a blocking TCP socket, so tests control the
/// exact bytes sent (garbage, oversized headers, chunked bodies). Every call runs on a
/// thread of its own and gives up after `timeoutSeconds`.
public enum RawHTTPClient {
    /// Sends `method path` with `headers` and `body` on a new connection that closes after.
    public static func request(
        _ method: String, _ path: String, port: Int,
        headers: [(String, String)] = [], body: Data = Data()
    ) async throws -> RawHTTPResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        guard let response = try await exchange(Data(head.utf8) + body, port: port, isHead: method == "HEAD") else {
            throw TestEnvironmentError("connection closed without a response")
        }
        return response
    }

    /// Writes `bytes` as they are and reads one response; `nil` when the server closed the
    /// connection without answering. Write errors after the server stopped reading (it
    /// answered early and closed) are ignored: the answer is what matters.
    public static func exchange(_ bytes: Data, port: Int, isHead: Bool = false, timeoutSeconds: Int = 30) async throws -> RawHTTPResponse? {
        try await BlockingWork.run(name: "raw-http") {
            let descriptor = try connect(port: port, timeoutSeconds: timeoutSeconds)
            defer { close(descriptor) }
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let sent = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if sent <= 0 { break }
                    offset += sent
                }
            }
            return try readResponse(descriptor, isHead: isHead)
        }
    }

    /// Opens a connection from `source` (any 127.0.0.0/8 address is this machine) and
    /// returns the socket (for tests that hold a connection open).
    public static func connect(port: Int, from source: String = "127.0.0.1", timeoutSeconds: Int = 30) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw TestEnvironmentError("cannot bind to \(source): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw TestEnvironmentError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    private static func readResponse(_ descriptor: Int32, isHead: Bool) throws -> RawHTTPResponse? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        let separator = Data("\r\n\r\n".utf8)
        var headerEnd = buffer.range(of: separator)
        while headerEnd == nil {
            guard fill() else { return nil }
            headerEnd = buffer.range(of: separator)
        }
        let head = String(decoding: buffer[..<headerEnd!.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestEnvironmentError("malformed status line in: \(head.prefix(200))")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = isHead ? 0 : headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        var body = buffer[headerEnd!.upperBound...]
        while body.count < length {
            guard fill() else { break }
            body = buffer[headerEnd!.upperBound...]
        }
        return RawHTTPResponse(status: status, headers: headers, body: Data(body.prefix(length)))
    }
}

extension RawHTTPClient {
    /// A loopback port that nothing listens on (bound, read, released).
    public static func connectableFreePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                Glibc.bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw TestEnvironmentError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension RawHTTPClient {
    /// Writes `bytes` on one connection and reads until the server closes it or
    /// `readSeconds` pass: every byte the server sent, so a test sees each response that
    /// one write produced (a request smuggled behind another answers a second time), and
    /// whether the server closed the connection.
    public static func conversation(_ bytes: Data, port: Int, readSeconds: Int = 3) async throws -> (text: String, closed: Bool) {
        try await BlockingWork.run(name: "raw-http") {
            let descriptor = try connect(port: port, timeoutSeconds: readSeconds)
            defer { close(descriptor) }
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let sent = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if sent <= 0 { break }
                    offset += sent
                }
            }
            var received = Data()
            var chunk = [UInt8](repeating: 0, count: 16_384)
            var count = 0
            repeat {
                count = recv(descriptor, &chunk, chunk.count, 0)
                if count > 0 { received.append(contentsOf: chunk[0..<count]) }
            } while count > 0
            return (String(decoding: received, as: UTF8.self), count == 0)
        }
    }

    /// The status codes of the responses in `text`, in order.
    public static func statuses(in text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }
}
