import App
import Foundation
import HTTPServer

extension ServeCommand {
    /// `GET /metrics` alone, on a listener of its own (one engine thread, no database):
    /// never on the API's port, where any client could read it.
    static func serveMetrics(_ metrics: Metrics, _ configuration: Configuration, lifecycle: Lifecycle, logger: Logger) throws {
        var http = configuration.http
        http.host = configuration.metricsHost
        http.port = configuration.effectiveMetricsPort
        http.threads = 1
        http.maxConnections = 64
        let routes = MetricsController(metrics: metrics, token: configuration.metricsToken).routes
        let responder = RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: []), logger: logger, gzipLevel: 0)
        let server = MicroHTTPServer(configuration: http, responder: responder, logger: logger)
        do {
            try server.start()
        } catch {
            throw ConfigurationError(name: "METRICS_PORT", reason: "cannot listen on \(http.host):\(http.port) (\(error)); set METRICS_PORT (0: any free port) or METRICS=false")
        }
        lifecycle.started("metrics http") { await server.shutdown(gracePeriod: .seconds(1)) }
        logger.info("metrics listening", ["host": .string(http.host), "port": .int(server.port)])
    }
}
