import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Synchronization

/// Read-your-writes over read replicas. A request that wrote (any method but GET, HEAD and
/// OPTIONS, answered 2xx) learns the primary's WAL position after its commit and hands it
/// back in a short-lived cookie; this instance also remembers it for the request's bearer
/// token. The client's next reads, on any instance, carry the cookie and run only on a
/// replica that has replayed that far, else on the primary. A client that keeps no cookies
/// still reads its writes on the instance that took them, and elsewhere after the bounded
/// lag (`REPLICA_MAX_LAG_MS` plus a poll).
///
/// The cookie is not a secret and grants nothing: a forged one can only send its own
/// reads to the primary until it expires (seconds).
public final class ReadYourWrites: AppMiddleware {
    static let cookie = "m09_read_after"
    private let replicas: ReadReplicas
    /// How long a write is remembered: by then every replica still used has it.
    private let window: Duration
    /// Bearer token → (position, remembered until). Bounded: at most `capacity` entries,
    /// expired ones swept as it grows.
    private let sessions = Mutex<[String: (position: WALPosition, until: ContinuousClock.Instant)]>([:])
    private let capacity = 10_000

    public init(replicas: ReadReplicas, window: Duration) {
        self.replicas = replicas
        self.window = window
    }

    /// Runs the handler with reads after the position `request` must see; a 2xx answer to
    /// a request that may have written records where the primary is now.
    func respond(to request: HTTPRequest, context: AppContext, next: AppHandler) async throws -> HTTPResponse {
        var context = context
        context.scope.readsAfter = position(for: request)?.value
        var response = try await next(request, context)
        if Self.mayWrite(request) { await recordWrite(request, &response) }
        return response
    }

    /// The position `request`'s reads must see, if any.
    func position(for request: HTTPRequest) -> WALPosition? {
        let fromCookie = Self.cookieValue(request.headers["Cookie"]).flatMap { WALPosition($0) }
        let remembered: WALPosition? = request.headers["Authorization"].flatMap { token in
            sessions.withLock { $0[token] }.flatMap { ContinuousClock.now < $0.until ? $0.position : nil }
        }
        return [fromCookie, remembered].compactMap { $0 }.max()
    }

    /// Whether `request` may have written.
    static func mayWrite(_ request: HTTPRequest) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(request.method)
    }

    /// After a successful write: the primary's position now, remembered and set as a cookie.
    /// If the primary cannot say (it just went away), the write is read after the bounded lag.
    func recordWrite(_ request: HTTPRequest, _ response: inout HTTPResponse) async {
        guard (200..<300).contains(response.status), let position = try? await replicas.writePosition() else { return }
        let seconds = max(1, Int((Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18).rounded(.up)))
        response.headers.add("Set-Cookie", "\(Self.cookie)=\(position.hex); Max-Age=\(seconds); Path=/; HttpOnly; SameSite=Lax")
        guard let token = request.headers["Authorization"], token.utf8.count <= 4096 else { return }
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            if sessions.count >= capacity { sessions = sessions.filter { now < $0.value.until } }
            if sessions.count >= capacity { sessions.removeAll() }
            sessions[token] = (position, now + window)
        }
    }

    /// The value of this feature's cookie in a `Cookie` header.
    static func cookieValue(_ header: String?) -> String? {
        guard let header, header.utf8.count <= 8192 else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            guard trimmed.hasPrefix(cookie + "=") else { continue }
            return String(trimmed.dropFirst(cookie.count + 1))
        }
        return nil
    }
}
