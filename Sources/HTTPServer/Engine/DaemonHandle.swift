import Foundation

/// The libmicrohttpd daemon pointer, and the reference it holds on its server.
///
/// `@unchecked Sendable`: it is stored under the server's `state` mutex, and the only
/// calls made with it (`MHD_quiesce_daemon`, then `MHD_stop_daemon`) are documented as
/// safe from any thread; `shutdown` makes them once, in that order, after `draining` is set.
struct DaemonHandle: @unchecked Sendable {
    let daemon: OpaquePointer
    /// The daemon's callbacks reach the server through an unretained pointer, so the
    /// daemon keeps it alive until `shutdown` has stopped the engine threads and releases
    /// this. A server dropped while running (a test that threw before stopping it) then
    /// leaks rather than leaving the callbacks a freed object: a full test run crashed on
    /// such a server's next request.
    let owner: Unmanaged<MicroHTTPServer>

    init(_ daemon: OpaquePointer, owner: Unmanaged<MicroHTTPServer>) {
        self.daemon = daemon
        self.owner = owner
    }
}
