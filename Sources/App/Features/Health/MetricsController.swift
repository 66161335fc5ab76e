import Foundation
import Synchronization

/// `GET /metrics`: the server's metrics in Prometheus' text format. Answered on the engine
/// thread that read the request, so a scrape still answers while every database
/// connection is busy (when an operator most needs it).
///
/// A rendering is served for up to a second: rendering takes ~2 ms of CPU (the bench's
/// `metrics` row: 981 scrapes/s used 195 % CPU), so on the API's port anyone could turn
/// scrapes into load on the engine threads. Prometheus scrapes every 15 s or so.
public final class MetricsController: Sendable {
    /// The content type Prometheus' text format is served with.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let metrics: Metrics
    private let rendered = Mutex<(at: ContinuousClock.Instant, body: Data)?>(nil)

    /// A controller serving `metrics`.
    public init(metrics: Metrics) {
        self.metrics = metrics
    }

    /// The one route, for the API's port or a port of its own.
    public var routes: [Route] {
        [
            Route(immediate: "GET", "/metrics") { [self] _ in
                HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", Self.contentType)]), body: body())
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
