import Foundation

/// `market09 <command>`: parses the subcommand and runs it. Exit codes: 0 success,
/// 1 failure, 2 usage error. Errors are one line on standard error.
public enum CommandLineInterface {
    static let help = """
        Usage: market09 <command> [options]

        Commands:
          serve      Run the HTTP API (see 'market09 serve --help').
          migrate    Apply pending database migrations (see 'market09 migrate --help').
          admin      Maintenance tasks: prune-anonymous (see 'market09 admin --help').

        Options:
          -h, --help   Show this help.

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
        switch command {
        case nil, "-h", "--help", "help":
            printLine(help)
            return command == nil ? 2 : 0
        case "serve":
            if wantsHelp { printLine(ServeCommand.help); return 0 }
            guard rest.isEmpty else { return usageError("serve takes no arguments; configure it with environment variables") }
            return await ServeCommand.run(environment: environment, executablePath: executablePath)
        case "migrate":
            if wantsHelp { printLine(MigrateCommand.help); return 0 }
            return await MigrateCommand.run(arguments: rest, environment: environment, executablePath: executablePath)
        case "admin":
            if wantsHelp { printLine(AdminCommand.help); return 0 }
            return await AdminCommand.run(arguments: rest, environment: environment)
        case let other?:
            return usageError("unknown command '\(other)'; run 'market09 --help'")
        }
    }

    /// Prints `error` as one line and returns exit code 1.
    static func fail(_ error: any Error) -> Int32 {
        printError("market09: error: \(String(describing: error))")
        return 1
    }

    /// Prints a usage problem as one line and returns exit code 2.
    static func usageError(_ message: String) -> Int32 {
        printError("market09: \(message)")
        return 2
    }

    static func printLine(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
    }

    /// The absolute path of the running executable, for locating `migrations/`.
    private static func executable(_ argument: String) -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return argument
    }
}
