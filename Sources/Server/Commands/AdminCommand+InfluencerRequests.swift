import Domain
import Foundation
import Persistence

/// `market09 admin influencer-requests list|approve|reject|retry`: what the profile lookup
/// does, by hand (and all there is when no lookup is configured). Any request not approved
/// yet may be approved, rejected or retried, failed ones included.
extension AdminCommand {
    static func influencerRequests(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        try await Actions(command: "influencer-requests",
                          table: ["list": listRequests, "approve": approveRequest, "reject": rejectRequest, "retry": retryRequest])
            .run(arguments, environment)
    }

    private static func listRequests(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["status", "limit", "database-url"])
        _ = try parsed.positionals()
        let status = try parsed.option("status").map { text in
            guard let status = InfluencerRequest.Status(rawValue: text) else { throw UsageError("--status is processing, approved or failed") }
            return status
        }
        let limit = try parsed.integer("limit", in: 1...10_000, default: 100)
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let page = try await PostgresInfluencerRequestRepository(pool: pool).requests(status: status, offset: 0, limit: limit)
            if page.items.isEmpty { CommandLineInterface.printLine("no influencer requests") }
            for request in page.items { CommandLineInterface.printLine(describe(request)) }
            return 0
        }
    }

    /// Approves with the fields given (an admin has looked at the profile).
    private static func approveRequest(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["full-name", "biography", "profile-pic-url", "external-url", "followers", "database-url"])
        let target = try parsed.positionals("<id|username>")[0]
        let followers = try parsed.integer("followers", in: 0...Int(Int32.max), default: 0)
        for name in ["profile-pic-url", "external-url"] {
            if let url = parsed.option(name), (try? ProfileRules.url(url, field: name)) == nil { throw UsageError("--\(name) must be an http(s) URL") }
        }
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let requests = PostgresInfluencerRequestRepository(pool: pool)
            guard let request = try await requests.request(idOrUsername: target) else { return notFound(target) }
            let profile = InstagramProfile(username: request.username, fullName: parsed.option("full-name"), biography: parsed.option("biography"),
                                           profilePicURL: parsed.option("profile-pic-url"), followersCount: followers,
                                           externalURL: parsed.option("external-url")).storable
            guard let approved = try await PostgresConsoleStore(pool: pool).approveRequest(id: request.id, profile: profile, by: actor(environment)) else { return alreadyApproved(request) }
            CommandLineInterface.printLine(describe(approved))
            return 0
        }
    }

    private static func rejectRequest(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["reason", "database-url"])
        let target = try parsed.positionals("<id|username>")[0]
        let reason = try parsed.option("reason").map { text in
            guard let reason = InfluencerRequest.Failure(rawValue: text) else {
                throw UsageError("--reason is one of \(InfluencerRequest.Failure.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return reason
        } ?? .rejected
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let requests = PostgresInfluencerRequestRepository(pool: pool)
            guard let request = try await requests.request(idOrUsername: target) else { return notFound(target) }
            guard let failed = try await PostgresConsoleStore(pool: pool).rejectRequest(id: request.id, reason: reason, by: actor(environment)) else { return notProcessing(request) }
            CommandLineInterface.printLine(describe(failed))
            return 0
        }
    }

    /// Opens a request again for the lookup (a failed one, or one stuck retrying), its
    /// attempts counted from zero.
    private static func retryRequest(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["database-url"])
        let target = try parsed.positionals("<id|username>")[0]
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let requests = PostgresInfluencerRequestRepository(pool: pool)
            guard let request = try await requests.request(idOrUsername: target) else { return notFound(target) }
            guard let reopened = try await PostgresConsoleStore(pool: pool).retryRequest(id: request.id, by: actor(environment)) else { return alreadyApproved(request) }
            CommandLineInterface.printLine(describe(reopened))
            return 0
        }
    }

    private static func describe(_ request: InfluencerRequest) -> String {
        var line = "\(request.id)  \(request.username)  \(request.status.rawValue)"
        if let reason = request.reason { line += " (\(reason.rawValue))" }
        if let influencer = request.influencerID { line += "  influencer \(influencer.rawValue)" }
        return line + "  requested \(request.createdAt.formatted(.iso8601))"
    }

    private static func notFound(_ target: String) -> Int32 {
        CommandLineInterface.printError("market09: error: no influencer request \(target)")
        return 1
    }

    private static func notProcessing(_ request: InfluencerRequest) -> Int32 {
        CommandLineInterface.printError("market09: error: influencer request \(request.username) is \(request.status.rawValue) already")
        return 1
    }

    private static func alreadyApproved(_ request: InfluencerRequest) -> Int32 {
        CommandLineInterface.printError("market09: error: influencer request \(request.username) is approved already")
        return 1
    }
}
