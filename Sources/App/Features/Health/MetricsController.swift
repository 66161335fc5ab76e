import Cryptography
import Foundation
import HTTPServer
import Synchronization

/// `GET /metrics`: the server's metrics in Prometheus' text format, on a listener of its
/// own (`METRICS_HOST:METRICS_PORT`, loopback by default), never on the API's port: a
/// stranger there watched another user's failed sign-ins move the error counters.
///
/// Rendered in a task, never on an engine thread, and served for up to a second: with
/// every label value from a fixed set and each family bounded (``Metrics/maxSeries``) a
/// rendering costs ~2 ms, but 981 scrapes/s once used 195 % CPU.
public final class MetricsController: Sendable {
    /// The content type Prometheus' text format is served with.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let metrics: Metrics
    private let token: [UInt8]?
    private let rendered = Mutex<(at: ContinuousClock.Instant, body: Data)?>(nil)

    /// A controller serving `metrics`; with `token`, scrapes must send
    /// `Authorization: Bearer <token>` (Prometheus' `authorization` setting).
    public init(metrics: Metrics, token: String? = nil) {
        self.metrics = metrics
        self.token = token.map { Array("Bearer \($0)".utf8) }
    }

    /// The one route.
    public var routes: [Route] {
        [
            Route("GET", "/metrics") { [self] request, _ in
                if let token {
                    let sent = Array((request.headers["Authorization"] ?? "").utf8)
                    guard sent.count == token.count, CryptoPrimitives.constantTimeEquals(sent, token) else {
                        var refusal = HTTPResponse.error(status: 401, code: ErrorCodes.invalidToken, message: "Scrapes need the metrics bearer token.")
                        refusal.headers.set("WWW-Authenticate", "Bearer realm=\"metrics\"")
                        return refusal
                    }
                }
                return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", Self.contentType)]), body: body())
            },
        ]
    }

    /// The latest rendering if under a second old, else a new one.
    private func body() -> Data {
        let now = ContinuousClock.now
        if let cached = rendered.withLock({ $0 }), now - cached.at < .seconds(1) { return cached.body }
        let body = Data(metrics.render().utf8)
        rendered.withLock { $0 = (now, body) }
        return body
    }
}
