import Foundation

/// `GET /metrics`: the server's metrics in Prometheus' text format. Answered on the engine
/// thread that read the request, so a scrape still answers while every database
/// connection is busy (when an operator most needs it).
public struct MetricsController: Sendable {
    /// The content type Prometheus' text format is served with.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let metrics: Metrics

    /// A controller serving `metrics`.
    public init(metrics: Metrics) {
        self.metrics = metrics
    }

    /// The one route, for the API's port or a port of its own.
    public var routes: [Route] {
        [
            Route(immediate: "GET", "/metrics") { [metrics] _ in
                HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", Self.contentType)]), body: Data(metrics.render().utf8))
            },
        ]
    }
}
