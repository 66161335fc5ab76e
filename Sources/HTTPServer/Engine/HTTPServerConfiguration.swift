import Foundation

/// Transport settings of the HTTP server.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: an IPv4 or IPv6 literal (`0.0.0.0`, `::`, `127.0.0.1`).
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free one (tests), readable afterwards from the server.
    public var port: Int = 8080
    /// Engine threads polling sockets (libmicrohttpd's thread pool).
    public var threads: Int = 2
    /// Largest request body accepted; larger ones get 413.
    public var maxBodyBytes: Int = 1 << 20
    /// Largest total size of request header fields; larger ones get 431.
    public var maxHeaderBytes: Int = 8 << 10
    /// Longest request target (path and query); longer ones get 414.
    public var maxURLBytes: Int = 4 << 10
    /// Seconds an idle keep-alive connection stays open.
    public var idleTimeoutSeconds: Int = 30
    /// Most simultaneous connections; further ones are refused by the engine.
    public var maxConnections: Int = 1024
    /// Most simultaneous connections from one client address (0: no per-address cap),
    /// so one address holding half-sent requests cannot take every slot. Behind a proxy
    /// every connection comes from the proxy: set 0 there and let the proxy cap clients.
    public var maxConnectionsPerAddress: Int = 64
    /// Seconds a request head may take in all, from the connection's start (or the end of
    /// the previous response plus the idle timeout), however steadily its bytes trickle.
    public var headerTimeoutSeconds: Int = 10
    /// Seconds a request body may take in all once its head has arrived.
    public var bodyTimeoutSeconds: Int = 30
    /// Where spooled bodies are written (removed when their request completes).
    public var spoolDirectory: String = NSTemporaryDirectory()

    public init() {}
}
