/// Cross-origin rules for browser clients. Disabled (no CORS headers) unless origins are
/// configured; `*` allows any origin.
public struct CORSPolicy: Sendable {
    /// Allowed origins, or `["*"]`; empty disables CORS.
    public let allowedOrigins: [String]
    /// Seconds a browser may cache a preflight answer.
    public let maxAgeSeconds: Int

    public init(allowedOrigins: [String], maxAgeSeconds: Int = 600) {
        self.allowedOrigins = allowedOrigins
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// The value for `Access-Control-Allow-Origin`, or `nil` when `origin` is not allowed.
    public func allowOrigin(for origin: String?) -> String? {
        guard let origin, !allowedOrigins.isEmpty else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    /// Whether `request` is a CORS preflight this policy answers.
    public func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == "OPTIONS" && request.headers["Origin"] != nil
            && request.headers["Access-Control-Request-Method"] != nil
    }

    /// The preflight answer for a path that supports `methods`.
    public func preflight(_ request: HTTPRequest, methods: [String]) -> HTTPResponse {
        var response = HTTPResponse.empty(status: 204)
        response.headers.add("Vary", "Origin")
        guard let origin = allowOrigin(for: request.headers["Origin"]) else { return response }
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Allow-Methods", methods.joined(separator: ", "))
        response.headers.add("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id, Idempotency-Key, If-None-Match, apikey, X-Client-Info, X-Supabase-Api-Version, Prefer")
        response.headers.add("Access-Control-Max-Age", String(maxAgeSeconds))
        return response
    }

    /// Adds the origin headers to an actual (non-preflight) response.
    public func decorate(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard !allowedOrigins.isEmpty else { return }
        response.headers.add("Vary", "Origin")
        guard let origin = allowOrigin(for: request.headers["Origin"]) else { return }
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, WWW-Authenticate")
    }
}
