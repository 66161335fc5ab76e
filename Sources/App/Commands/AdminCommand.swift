import Data
import Foundation

/// `market09 admin <task>`: operator maintenance.
enum AdminCommand {
    static let help = """
        Usage: market09 admin prune-anonymous --older-than DURATION [--dry-run] [--batch-size N] [--database-url URL]

        Deletes anonymous users created more than DURATION ago (e.g. 30d, 12h) that have no
        live session refreshed within it, with their sessions and likes (like counts stay
        exact), in batches of N (default 500) that never block live requests.

        Options:
          --older-than DURATION   Required. A number with d, h, m or s.
          --dry-run               Print how many would be deleted; delete nothing.
          --batch-size N          Users per transaction (1–10000).
          --database-url URL      Default: DATABASE_URL, else the embedded cluster.
          -h, --help              Show this help.
        """

    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        guard arguments.first == "prune-anonymous" else {
            return CommandLineInterface.usageError("admin needs a task: prune-anonymous (see 'market09 admin --help')")
        }
        var olderThan: TimeInterval?
        var dryRun = false
        var batchSize = 500
        var databaseURL = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var remaining = arguments.dropFirst()
        while let argument = remaining.popFirst() {
            switch argument {
            case "--dry-run": dryRun = true
            case "--older-than":
                guard let value = remaining.popFirst(), let seconds = parseDuration(value) else {
                    return CommandLineInterface.usageError("--older-than needs a duration such as 30d, 12h, 90m")
                }
                olderThan = seconds
            case "--batch-size":
                guard let value = remaining.popFirst().flatMap(Int.init), (1...10_000).contains(value) else {
                    return CommandLineInterface.usageError("--batch-size needs an integer in 1...10000")
                }
                batchSize = value
            case "--database-url":
                guard let value = remaining.popFirst() else { return CommandLineInterface.usageError("--database-url needs a value") }
                databaseURL = value
            default:
                return CommandLineInterface.usageError("unknown option '\(argument)' for admin prune-anonymous")
            }
        }
        guard let olderThan else { return CommandLineInterface.usageError("--older-than is required") }
        let cutoff = Date().addingTimeInterval(-olderThan)
        let since = cutoff.formatted(.iso8601)
        return await DatabaseTarget.withPool(databaseURL: databaseURL, environment: environment) { pool in
            let pruner = PostgresAnonymousUserPruner(pool: pool)
            if dryRun {
                CommandLineInterface.printLine("would delete \(try await pruner.count(inactiveSince: cutoff)) anonymous users inactive since \(since)")
            } else {
                let (deleted, batches) = try await pruner.prune(inactiveSince: cutoff, batchSize: batchSize)
                CommandLineInterface.printLine("deleted \(deleted) anonymous users inactive since \(since) in \(batches) batches")
            }
            return 0
        }
    }

    /// `30d`, `12h`, `90m`, `45s` → seconds.
    static func parseDuration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let amount = Int(text.dropLast()), amount > 0 else { return nil }
        switch unit {
        case "d": return TimeInterval(amount) * 86_400
        case "h": return TimeInterval(amount) * 3600
        case "m": return TimeInterval(amount) * 60
        case "s": return TimeInterval(amount)
        default: return nil
        }
    }
}
