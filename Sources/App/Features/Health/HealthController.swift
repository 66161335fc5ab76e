import Domain
import HTTPServer

/// `GET /health` (the process answers) and `GET /ready` (the database answers too), for
/// load balancers and orchestrators.
struct HealthController: Sendable {
    let readiness: any ReadinessProbe
    let logger: Logger

    var routes: [Route] {
        // Encoded once: the probe is the cheapest request there is (its JSON was 2 % of
        // its server CPU in perf).
        let alive = HTTPResponse.json(Status(status: "ok"))
        return [
            Route(immediate: "GET", "/health") { _ in alive },
            Route("GET", "/ready") { request, _ in try await ready(request) },
        ]
    }

    private func ready(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            try await readiness.check()
            return .json(Status(status: "ready"))
        } catch DomainError.starting(let reason) {
            // Alive, warming up: balancers and compose wait; no warning per probe.
            return APIError(status: 503, code: ErrorCodes.starting, message: reason).with("Retry-After", "5").response
        } catch {
            logger.warning("readiness check failed", ["request_id": .string(request.requestID), "error": .string(String(describing: error))])
            return .error(status: 503, code: ErrorCodes.databaseUnavailable, message: "The database is not reachable.")
        }
    }

    private struct Status: JSONWritable {
        let status: String

        func write(to json: inout JSONWriter) {
            json.object { json in json.field("status", status) }
        }
    }
}
