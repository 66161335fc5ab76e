import App
import HTTPServer
/// A wrong command line: exit code 2 and one line.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Parses `--flag`, `--option value`, `--option=value` and positional arguments against
/// a command's declared flags and options; anything else is a ``UsageError``.
struct ParsedArguments {
    private(set) var positionals: [String] = []
    private var flags: Set<String> = []
    private var values: [String: String] = [:]

    /// Parses `arguments` allowing `flags` (no value) and `options` (one value each).
    init(_ arguments: [String], flags allowedFlags: Set<String> = [], options allowedOptions: Set<String> = []) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.split(separator: "=", maxSplits: 1)[0])
            let inline = body.contains("=") ? String(body.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[1]) : nil
            if allowedFlags.contains(name) {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if allowedOptions.contains(name) {
                guard values[name] == nil else { throw UsageError("--\(name) given twice") }
                guard let value = inline ?? remaining.popFirst(), !value.isEmpty else { throw UsageError("--\(name) needs a value") }
                values[name] = value
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    /// Whether `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `--name`, if given.
    func option(_ name: String) -> String? { values[name] }

    /// An integer option in `range`, or `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) needs an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// Exactly `count` positional arguments, named in the error when missing.
    func positionals(_ names: String...) throws -> [String] {
        guard positionals.count == names.count else {
            throw UsageError(positionals.count < names.count ? "missing \(names[positionals.count])" : "unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }
}
