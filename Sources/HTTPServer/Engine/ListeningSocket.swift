import Foundation

/// Creates the listening TCP socket that libmicrohttpd accepts on. Owning the socket
/// lets the server learn the bound port (for `PORT=0`) without C-variadic calls, and close
/// it itself when it stops accepting.
public enum ListeningSocket {
    /// Why binding failed, as one line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Binds `host:port` (an IPv4 or IPv6 literal) and listens. Returns the socket and the
    /// port actually bound.
    static func bind(host: String, port: Int, backlog: Int32 = 1024) throws -> (descriptor: Int32, port: Int) {
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            family = AF_INET
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            family = AF_INET6
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw Failure(description: "HOST '\(host)' is not an IPv4 or IPv6 address")
        }
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32 = family == AF_INET
            ? withUnsafePointer(to: &ipv4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            : withUnsafePointer(to: &ipv6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot listen on \(host):\(port): \(reason)")
        }
        return (descriptor, boundPort(descriptor))
    }

    private static func boundPort(_ descriptor: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET) {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
        }
    }

    /// The numeric address of a peer, e.g. `127.0.0.1` or `::1`.
    static func describe(_ address: UnsafePointer<sockaddr>) -> String? {
        // On the stack: this runs for every request (its array was 1 % of /health's CPU).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
            let size = socklen_t(buffer.count)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                    var raw = ipv4.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, buffer.baseAddress, size).map { String(cString: $0) }
                }
            case AF_INET6:
                return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                    var raw = ipv6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &raw, buffer.baseAddress, size).map { String(cString: $0) }
                }
            default:
                return nil
            }
        }
    }
}

extension ListeningSocket {
    /// Whether `host` is an IPv4 or IPv6 literal ``bind(host:port:backlog:)`` accepts.
    public static func isAddress(_ host: String) -> Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        return inet_pton(AF_INET, host, &ipv4) == 1 || inet_pton(AF_INET6, host, &ipv6) == 1
    }
}
