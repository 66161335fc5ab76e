import App
import Cryptography
import Foundation
import HTTPServer
import Persistence

/// `market09 seed demo [--seed N] [--reset]`.
enum DemoSeedCommand {
    static func run(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: ["reset"], options: ["seed", "database-url"])
        _ = try parsed.positionals()
        let seed = UInt64(try parsed.integer("seed", in: 0...Int.max, default: 9))
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let hash = try await PBKDF2PasswordHasher().hash("demo-password")
            let report = try await PostgresDemoSeeder(pool: pool).seed(seed: seed, now: Date(), reset: parsed.flag("reset"), passwordHash: hash)
            CommandLineInterface.printLine("""
                demo: \(report.influencers) influencers, \(report.postsInserted) posts added, \(report.postsMoved) posts moved to current dates, \
                \(report.users) users (sign in as demo1@demo.09market.kr / demo-password), \(report.likesInserted) likes added, \(report.followsInserted) follows added, \(report.requestsInserted) influencer requests added
                """)
            return 0
        }
    }
}
