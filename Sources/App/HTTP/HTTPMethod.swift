/// The request methods the server serves. Anything else a client invents (HTTP allows any
/// token, and nginx passes it on) is answered 501 before routing and is `other` wherever
/// it would be recorded: in a metric label or a log line it could otherwise be 8 KB long
/// and new on every request.
public enum HTTPMethod {
    /// Every method a route or a preflight may use.
    public static let served: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// `method` when served, else `other`.
    public static func label(_ method: String) -> String {
        served.contains(method) ? method : "other"
    }
}
