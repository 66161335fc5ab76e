import CMicroHTTPD

/// Reads a connection's header fields and decoded query arguments from libmicrohttpd.
/// Only valid on the engine thread that is handling the connection.
enum ConnectionValues {
    /// The first value of header `name` (case-insensitive).
    static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// Calls `body` for every value of `kind` (headers or decoded query arguments), in order.
    /// A query argument without `=` arrives with an empty value.
    static func forEach(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ body: (String, String) -> Void) {
        withoutActuallyEscaping(body) { body in
            let visitor = Visitor(body)
            _ = MHD_get_connection_values(connection, kind, iterator, Unmanaged.passUnretained(visitor).toOpaque())
        }
    }

    /// Carries the visiting closure through libmicrohttpd's `cls` pointer.
    private final class Visitor {
        let visit: (String, String) -> Void
        init(_ visit: @escaping (String, String) -> Void) { self.visit = visit }
    }

    private static let iterator: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let visitor = Unmanaged<Visitor>.fromOpaque(cls).takeUnretainedValue()
        visitor.visit(String(cString: key), value.map { String(cString: $0) } ?? "")
        return .YES
    }
}
