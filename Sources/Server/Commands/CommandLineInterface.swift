import App
import Foundation
import HTTPServer

/// `market09 <command>`: parses the subcommand and runs it. Exit codes: 0 success,
/// 1 failure, 2 usage error. Errors are one line on standard error.
public enum CommandLineInterface {
    static let help = """
        Usage: market09 <command> [options]

        Commands:
          serve                      Run the HTTP API.
          migrate [--dry-run]        Apply (or list) pending database migrations.
          seed bulk | seed demo      Load the benchmark or the demo dataset.
          import influencers|posts   Upsert influencers or posts from JSON, NDJSON or CSV.
          import supabase DIR        Import the 09Market Supabase project's CSV exports.
          import supabase-media DIR  Adopt the old Storage bucket's images; rewrite their URLs.
          admin <task>               create-user, grant-admin, revoke-admin, list-admins,
                                     stats, prune-anonymous, prune-uploads,
                                     influencer-requests, api-keys.
          backup list|create|verify  The embedded database's backups (pgBackRest).
          restore --to TIME|--latest The database and its media as they were, into a new
                                     directory (--target DIR) or in place.
          --version                  Print the version.

        Every command takes --help. Database commands take --database-url URL, else
        DATABASE_URL, else the embedded cluster in MARKET09_DATA_DIR (./.market09, which
        `serve` creates; the others refuse to create one), and say which they use on stderr.

        Configuration comes from environment variables:
        \(variableTable)
        """

    static let variableTable: String = {
        let nameWidth = (Configuration.variables.map(\.name.count).max() ?? 0) + 2
        let valueWidth = (Configuration.variables.map(\.defaultValue.count).max() ?? 0) + 2
        return Configuration.variables.map { variable in
            let name = variable.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let value = variable.defaultValue.padding(toLength: valueWidth, withPad: " ", startingAt: 0)
            return "  \(name)\(value)\(variable.summary)"
        }.joined(separator: "\n")
    }()

    /// Runs the command named by `arguments[1]` and returns the process exit code.
    public static func main(arguments: [String], environment: [String: String]) async -> Int32 {
        let executablePath = executable(arguments.first ?? "market09")
        let command = arguments.dropFirst().first
        let rest = Array(arguments.dropFirst(2))
        let wantsHelp = rest.contains("--help") || rest.contains("-h")
        do {
            switch command {
            case nil, "-h", "--help", "help":
                printLine(help)
                return command == nil ? 2 : 0
            case "--version", "version":
                printLine("market09 \(ServerMetrics.version)")
                return 0
            case "serve":
                if wantsHelp { printLine(ServeCommand.help); return 0 }
                guard rest.isEmpty else { throw UsageError("serve takes no arguments; configure it with environment variables") }
                return await ServeCommand.run(environment: environment, executablePath: executablePath)
            case "migrate":
                if wantsHelp { printLine(MigrateCommand.help); return 0 }
                return try await MigrateCommand.run(arguments: rest, environment: environment, executablePath: executablePath)
            case "admin":
                return try await AdminCommand.run(arguments: rest, environment: environment)
            case "seed":
                return try await SeedCommand.run(arguments: rest, environment: environment)
            case "import":
                return try await ImportCommand.run(arguments: rest, environment: environment)
            case "backup":
                return try await BackupCommand.run(arguments: rest, environment: environment)
            case "restore":
                return try await RestoreCommand.run(arguments: rest, environment: environment)
            case let other?:
                throw UsageError("unknown command '\(other)'; run 'market09 --help'")
            }
        } catch let error as UsageError {
            printError("market09: \(error.description)")
            return 2
        } catch {
            return fail(error)
        }
    }

    /// Prints `error` as one line and returns exit code 1.
    static func fail(_ error: any Error) -> Int32 {
        printError("market09: error: \(String(describing: error))")
        return 1
    }

    static func printLine(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func printError(_ text: String) {
        Logger.flush() // after the log lines it follows
        FileHandle.standardError.write(Data((text.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
    }

    /// A command with tasks (`admin`, `seed`): the task and its arguments, or the exit code
    /// after printing `help` (0 when asked for, 2 when the task is missing).
    static func task(_ arguments: [String], help: String) -> Result<(name: String, arguments: [String]), ExitCode> {
        guard let name = arguments.first, !["-h", "--help"].contains(name) else {
            printLine(help)
            return .failure(ExitCode(arguments.isEmpty ? 2 : 0))
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            printLine(help)
            return .failure(ExitCode(0))
        }
        return .success((name, rest))
    }

    /// An exit code carried through ``task(_:help:)``.
    struct ExitCode: Error {
        let code: Int32
        init(_ code: Int32) { self.code = code }
    }

    /// The database URL a one-shot command uses: `--database-url`, else `DATABASE_URL`.
    static func databaseURL(_ parsed: ParsedArguments, _ environment: [String: String]) -> String? {
        parsed.option("database-url") ?? environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The absolute path of the running executable, for locating `migrations/`.
    private static func executable(_ argument: String) -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return argument
    }
}
