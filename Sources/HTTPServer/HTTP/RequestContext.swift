import Synchronization

/// What the transport knows of a request besides its bytes, handed with it to every step
/// of its route's chain: the route it matched, the client behind the trusted proxies, and
/// the record the access log reads once it is answered. Made once per request, after
/// routing; the product wraps it in a context of its own (its scope, its caller).
public struct RequestContext: Sendable {
    /// The matched route's template (`/v1/posts/{id}`), as metrics and logs name it.
    public let route: String
    /// The client's address, after the trusted proxies (``ClientAddress``).
    public let client: String?
    /// What the chain tells the access log about the request (the signed-in user).
    public let log: RequestLog

    public init(route: String, client: String?, log: RequestLog) {
        self.route = route
        self.client = client
        self.log = log
    }
}

/// One request's line of the access log and its metrics labels, as they are learnt: the
/// route when the head is matched, the client when it is routed, the user when a step
/// of the chain has authenticated it. The transport makes one per request and reads it
/// once the answer is sent; nothing here is sent to the client.
public final class RequestLog: Sendable {
    private struct Fields {
        var route: String?
        var client: String?
        var user: String?
    }

    private let fields = Mutex(Fields())

    public init() {}

    /// The matched route's template; `nil` when none matched.
    public var route: String? {
        get { fields.withLock { $0.route } }
        set { fields.withLock { $0.route = newValue } }
    }

    /// The client's address after the trusted proxies; `nil` until routed.
    public var client: String? {
        get { fields.withLock { $0.client } }
        set { fields.withLock { $0.client = newValue } }
    }

    /// The authenticated user's id, when the chain knew it.
    public var user: String? {
        get { fields.withLock { $0.user } }
        set { fields.withLock { $0.user = newValue } }
    }
}
