/// How a route receives its request body, decided from the head alone, before a byte of
/// the body is read: its own size limit, whether the body goes to a file (uploads), and a
/// check of the head that may refuse the request outright.
///
/// An upload's token, the permanent-user rule and the account's quota are checked here,
/// so a client with no token cannot have 6 MiB written to `media/incoming/` before the
/// handler looks at the token.
public struct Reception: Sendable {
    /// Checks a request's head (its body not read yet); a response refuses the request,
    /// `nil` lets the body in. Thrown errors are answered through the route's error mapping.
    public typealias Admission = @Sendable (HTTPRequest) async throws -> HTTPResponse?

    /// The largest body accepted; `nil`: the server's `maxBodyBytes`.
    public var maxBodyBytes: Int?
    /// Whether the body is written to a file as it arrives instead of memory.
    public var spooled: Bool
    /// The check of the head, run before the body is read.
    public var admission: Admission?

    /// A reception of bodies up to `maxBodyBytes`, in a file when `spooled`, let in by `admission`.
    public init(maxBodyBytes: Int? = nil, spooled: Bool = false, admission: Admission? = nil) {
        self.maxBodyBytes = maxBodyBytes
        self.spooled = spooled
        self.admission = admission
    }
}

extension Route {
    /// The same route receiving its body as `reception` says.
    public func receiving(_ reception: Reception) -> Route {
        var route = self
        route.reception = reception
        return route
    }
}
