import Foundation

/// The client's address: the socket peer, or — when the peer is a trusted proxy — the
/// right-most `X-Forwarded-For` entry that is not itself a trusted proxy.
public struct ClientAddress: Sendable {
    private let trustedProxies: Set<String>

    /// Creates the resolver with the proxies whose `X-Forwarded-For` is believed.
    public init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies)
    }

    /// The address to rate-limit `request` by.
    public func of(_ request: HTTPRequest) -> String {
        let peer = request.remoteAddress ?? "unknown"
        guard trustedProxies.contains(peer), let forwarded = request.headers["X-Forwarded-For"] else { return peer }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trustedProxies.contains($0) } ?? peer
    }
}
