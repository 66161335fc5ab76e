import App
import Foundation
import HTTPServer
import Persistence

/// `market09 seed bulk|demo`: generated datasets.
enum SeedCommand {
    static let help = """
        Usage: market09 seed bulk --posts N --users N --likes N [--influencers N] [--seed N] [--database-url URL]
               market09 seed demo [--seed N] [--reset] [--database-url URL]

        bulk  The benchmark dataset, streamed with COPY in one transaction (a failed load
              leaves nothing); triggers are off during the load, counters are rebuilt and
              secondary indexes built at the end. Use a fresh database. Shows a progress bar
              on a terminal and progress lines otherwise, then each step after the rows.
        demo  A realistic dataset for trying the app (see the README).
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        let (kind, rest): (String, [String])
        switch CommandLineInterface.task(arguments, help: help) {
        case .failure(let exit): return exit.code
        case .success(let parsed): (kind, rest) = (parsed.name, parsed.arguments)
        }
        switch kind {
        case "bulk": return try await bulk(rest, environment)
        case "demo": return try await DemoSeedCommand.run(rest, environment)
        default: throw UsageError("seed needs bulk or demo, not '\(kind)'")
        }
    }

    private static func bulk(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["posts", "users", "likes", "influencers", "seed", "database-url"])
        _ = try parsed.positionals()
        guard parsed.option("posts") != nil, parsed.option("users") != nil, parsed.option("likes") != nil else {
            throw UsageError("seed bulk needs --posts, --users and --likes")
        }
        let posts = try parsed.integer("posts", in: 0...50_000_000, default: 0)
        let plan = PostgresBulkSeeder.Plan(
            influencers: try parsed.integer("influencers", in: 1...1_000_000, default: max(1, min(30_000, posts / 30))),
            posts: posts, users: try parsed.integer("users", in: 0...10_000_000, default: 0),
            likes: try parsed.integer("likes", in: 0...200_000_000, default: 0))
        let seed = UInt64(try parsed.integer("seed", in: 0...Int.max, default: 1))
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let progress = ProgressReporter(label: "seed", total: plan.rows)
            try await PostgresBulkSeeder(pool: pool).seed(plan, seed: seed, now: Date(), progress: { progress.update($0) },
                                                          stage: { progress.stage($0) })
            progress.finish()
            CommandLineInterface.printLine("seeded \(plan.influencers) influencers, \(plan.posts) posts, \(plan.users) users, \(plan.likes) likes")
            return 0
        }
    }
}
