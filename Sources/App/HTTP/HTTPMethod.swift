/// The request methods the server knows. A method it does not know (HTTP allows any
/// token, and nginx passes it on) is answered 501 before routing and is `other` wherever
/// it would be recorded: in a metric label or a log line it could otherwise be 8 KB long
/// and new on every request. Known methods no route serves (TRACE, CONNECT) are routed
/// and answered 405 with `Allow`, as RFC 9110 asks.
public enum HTTPMethod {
    /// Every method a route or a preflight may use.
    public static let served: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    /// The methods of RFC 9110: the served ones and those no route serves.
    public static let known: Set<String> = served.union(["TRACE", "CONNECT"])

    /// `method` when known, else `other`.
    public static func label(_ method: String) -> String {
        known.contains(method) ? method : "other"
    }
}
