import App
import HTTPServer
import Persistence
/// The shape of everything `serve` runs beside the request path — the database, the pool,
/// the background jobs, the HTTP engine: started once, stopped once (stopping waits for
/// work in progress).
public protocol Service: Sendable {
    /// Starts the service; a service that cannot start stops start-up.
    func start() async throws
    /// Stops it and waits for work in progress.
    func stop() async
}

extension RepeatingJob: Service {}
extension SessionRevocations: Service {}
extension JobLeadership: Service {}
extension ReadReplicas: Service {}

/// What has been started, stopped in reverse order through one path: a service stops
/// only after everything started after it (jobs before the pool they use, the pool
/// before the database under it), whether start-up finished or failed half-way.
final class Lifecycle {
    private var started: [(name: String, stop: () async -> Void)] = []
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Starts `service` and remembers to stop it.
    func start(_ name: String, _ service: some Service) async throws {
        try await service.start()
        started.append((name, service.stop))
    }

    /// Remembers how to stop something already running (a resource started by creating it).
    func started(_ name: String, stop: @escaping () async -> Void) {
        started.append((name, stop))
    }

    /// Stops everything started, newest first; safe to call again.
    func stopAll() async {
        while let last = started.popLast() {
            logger.log(.debug, "stopping", ["service": .string(last.name)])
            await last.stop()
        }
    }
}
