import App
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver

/// The operators' console's wiring: on the API's listener by default, or on its own
/// (ADMIN_CONSOLE_HOST/PORT) for deployments that keep it off the public balancer; and the
/// audit log's retention.
extension ServeCommand {
    /// Mounts the console's store when the console is on.
    static func enableConsole(_ dependencies: inout Application.Dependencies, _ configuration: Configuration, pool: PostgresPool, metrics: Metrics?) {
        guard configuration.consoleEnabled else { return }
        dependencies.console = PostgresConsoleStore(pool: pool)
        dependencies.consoleIdleTimeout = TimeInterval(configuration.consoleIdleMinutes * 60)
        if let metrics { dependencies.consoleHealth = { metrics.render() } }
    }

    /// Whether the console has a listener of its own.
    static func consoleListensApart(_ configuration: Configuration) throws -> Bool {
        switch (configuration.consoleHost, configuration.consolePort) {
        case (nil, nil): return false
        case (.some, .some): return true
        default: throw ConfigurationError(name: "ADMIN_CONSOLE_HOST", reason: "set ADMIN_CONSOLE_HOST and ADMIN_CONSOLE_PORT together, or neither")
        }
    }

    /// `/admin` alone on ADMIN_CONSOLE_HOST:ADMIN_CONSOLE_PORT.
    static func serveConsole(_ dependencies: Application.Dependencies, auth: AuthSettings, _ configuration: Configuration,
                             pool: PostgresPool, lifecycle: Lifecycle, logger: Logger) throws {
        var http = configuration.http
        http.host = configuration.consoleHost ?? "127.0.0.1"
        http.port = configuration.consolePort ?? 0
        http.threads = 1
        http.maxConnections = 64
        let routes = Application.consoleRoutes(dependencies: dependencies, auth: auth, logger: logger)
        let responder = RoutingResponder(routes: routes, cors: CORSPolicy(allowedOrigins: []), logger: logger, gzipLevel: configuration.gzipLevel,
                                         errors: ErrorResponses(logger: logger), trustedProxies: auth.trustedProxies)
        let server = MicroHTTPServer(configuration: http, responder: responder, logger: logger, executor: pool)
        do {
            try server.start()
        } catch {
            throw ConfigurationError(name: "ADMIN_CONSOLE_PORT", reason: "cannot listen on \(http.host):\(http.port) (\(error))")
        }
        lifecycle.started("console http") { await server.shutdown(gracePeriod: .seconds(2)) }
        logger.info("console listening", ["host": .string(http.host), "port": .int(server.port)])
    }

    /// Hourly: audit entries older than AUDIT_RETENTION_DAYS.
    static func auditRetention(_ store: any ConsoleStore, days: Int, logger: Logger, metrics: Metrics?, leadership: JobLeadership) -> RepeatingJob {
        RepeatingJob(name: "audit retention", interval: .seconds(3600), logger: logger, metrics: metrics, leadership: leadership) {
            let removed = try await store.pruneAudit(before: Date().addingTimeInterval(-TimeInterval(days) * 86_400))
            if removed > 0 { logger.info("audit entries past retention removed", ["count": .int(removed)]) }
        }
    }
}
