import Foundation
import Persistence
import PostgresDriver

/// Typed reads of environment variables; a bad value throws ``ConfigurationError`` naming it.
struct EnvironmentReader {
    let environment: [String: String]
    init(_ environment: [String: String]) { self.environment = environment }

    /// The value, `nil` when unset or empty; `problem` returns a reason to reject it.
    func string(_ name: String, _ problem: (String) -> String? = { _ in nil }) throws -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        if let reason = problem(value) { throw ConfigurationError(name: name, reason: reason) }
        return value
    }

    /// A comma-separated list; `problem` is asked about each entry.
    func list(_ name: String, _ problem: (String) -> String? = { _ in nil }) throws -> [String] {
        guard let text = try string(name) else { return [] }
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for entry in entries {
            if let reason = problem(entry) { throw ConfigurationError(name: name, reason: reason) }
        }
        return entries
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(name: name, reason: "'\(text)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func statementMode(_ name: String) throws -> PostgresConnection.StatementMode? {
        try string(name) { PostgresConnection.StatementMode(rawValue: $0) == nil ? "expected prepared or unnamed" : nil }
            .flatMap(PostgresConnection.StatementMode.init(rawValue:))
    }

    func boolean(_ name: String) throws -> Bool? {
        guard let text = try string(name) else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError(name: name, reason: "'\(text)' is not true or false")
        }
    }
}
