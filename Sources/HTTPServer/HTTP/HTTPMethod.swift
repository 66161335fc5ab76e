/// The request methods the server knows. A method it does not know (HTTP allows any
/// token, and nginx passes it on) is answered 501 before routing and is `other` wherever
/// it would be recorded: in a metric label or a log line it could otherwise be 8 KB long
/// and new on every request. Known methods no route serves (TRACE, CONNECT, QUERY, the
/// WebDAV ones) are routed and answered 405 with `Allow`, as RFC 9110 asks: "known" is
/// IANA's HTTP Method Registry, a fixed list of 40 (schemathesis sends QUERY, and a 501
/// told it the server did not know a registered method).
public enum HTTPMethod {
    /// Every method a route or a preflight may use.
    public static let served: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    /// The methods of IANA's HTTP Method Registry: the served ones and those no route serves.
    public static let known: Set<String> = served.union([
        "ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "CONNECT", "COPY", "LABEL", "LINK", "LOCK", "MERGE", "MKACTIVITY",
        "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE", "MOVE", "ORDERPATCH", "PRI", "PROPFIND", "PROPPATCH", "QUERY", "REBIND",
        "REPORT", "SEARCH", "TRACE", "UNBIND", "UNCHECKOUT", "UNLINK", "UNLOCK", "UPDATE", "UPDATEREDIRECTREF", "VERSION-CONTROL",
    ])

    /// `method` when known, else `other`.
    public static func label(_ method: String) -> String {
        known.contains(method) ? method : "other"
    }
}
