import Foundation

/// The client a request counts against in rate limits: the socket peer, or — when the
/// peer is a trusted proxy — the right-most `X-Forwarded-For` entry that is not itself a
/// trusted proxy, read across every line of that header as one list (RFC 9110 §5.3:
/// repeated lines are one comma-separated list; a client's own line comes first, so
/// reading only the first line let a client choose its key).
///
/// IPv6 clients are keyed by their /64: one subscriber line usually holds a whole /64, and
/// per-address keys would give it 2⁶⁴ budgets. IPv4-mapped IPv6 counts as the IPv4 address.
public struct ClientAddress: Sendable {
    private let trustedProxies: Set<String>

    /// Creates the resolver with the proxies whose `X-Forwarded-For` is believed.
    public init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies.map(Self.canonical))
    }

    /// The key to rate-limit `request` by.
    public func of(_ request: HTTPRequest) -> String {
        let peer = Self.canonical(request.remoteAddress ?? "unknown")
        guard trustedProxies.contains(peer) else { return Self.limitKey(peer) }
        let hops = request.headers.values(of: "X-Forwarded-For")
            .flatMap { $0.split(separator: ",") }
            .map { Self.canonical($0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.isEmpty }
        return Self.limitKey(hops.last { !trustedProxies.contains($0) } ?? peer)
    }

    /// The client's address as it is (the access log's): the peer, or the right-most
    /// untrusted `X-Forwarded-For` hop behind trusted proxies, at most 64 characters.
    public func address(of request: HTTPRequest) -> String {
        let peer = Self.canonical(request.remoteAddress ?? "unknown")
        guard trustedProxies.contains(peer) else { return String(peer.prefix(64)) }
        let hops = request.headers.values(of: "X-Forwarded-For")
            .flatMap { $0.split(separator: ",") }
            .map { Self.canonical($0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.isEmpty }
        return String((hops.last { !trustedProxies.contains($0) } ?? peer).prefix(64))
    }

    /// An address in one spelling: IPv6 compressed and lower-case, IPv4-mapped IPv6 as
    /// IPv4; anything unparseable as it is (bounded by the header limits).
    public static func canonical(_ text: String) -> String {
        var v4 = in_addr()
        // glibc's inet_pton takes IPv4 only as four decimal parts without leading zeros:
        // what it accepts is already the one spelling (the socket peer's every request).
        if inet_pton(AF_INET, text, &v4) == 1 { return text }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return text }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return format(AF_INET, Array(bytes[12..<16]))
        }
        return format(AF_INET6, bytes)
    }

    /// IPv4 addresses as they are; IPv6 addresses as their /64 network.
    public static func limitKey(_ canonical: String) -> String {
        var v6 = in6_addr()
        guard canonical.contains(":"), inet_pton(AF_INET6, canonical, &v6) == 1 else { return canonical }
        let network = withUnsafeBytes(of: v6) { Array($0.prefix(8)) } + [UInt8](repeating: 0, count: 8)
        return format(AF_INET6, network) + "/64"
    }

    private static func format(_ family: Int32, _ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
