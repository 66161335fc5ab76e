import Domain
import Foundation

/// `GET /ready` for `serve`: the database answers and the feed's first pass is done (the
/// day's order built), so a balancer sends no traffic that would be answered `starting`.
/// `/health` answers from the moment the server listens.
struct ServingReadiness: ReadinessProbe {
    let database: any ReadinessProbe
    let feed: RepeatingJob

    func check() async throws {
        guard feed.hasCompletedAPass else {
            throw DomainError.starting("The feed's order for today is being built (the server has just started).")
        }
        try await database.check()
    }
}
