import Cryptography
import Domain
import Foundation
import Persistence

/// `market09 admin api-keys create|list|revoke`: keys for services (the automation that
/// fills the feed through `/v1/ingest`). A key's text is printed once, when made; the
/// database keeps its SHA-256 only.
extension AdminCommand {
    static func apiKeys(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        try await Actions(command: "api-keys", table: ["create": createKey, "list": listKeys, "revoke": revokeKey]).run(arguments, environment)
    }

    private static func createKey(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["name", "scope", "database-url"])
        _ = try parsed.positionals()
        guard let name = parsed.option("name") else { throw UsageError("--name is required (1-64 of A-Z, a-z, 0-9, '.', '_', '-')") }
        guard ServiceKeyText.isValidName(name) else { throw UsageError("--name must be 1-64 of A-Z, a-z, 0-9, '.', '_', '-'") }
        let scopes = ServiceScope.allCases.map(\.rawValue).joined(separator: ", ")
        guard let scopeText = parsed.option("scope") else { throw UsageError("--scope is required (\(scopes))") }
        guard let scope = ServiceScope(rawValue: scopeText) else { throw UsageError("--scope is one of \(scopes)") }
        let text = ServiceKeyText.prefix(scope) + Base64URL.encode(CryptoPrimitives.randomBytes(32))
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            do {
                let key = try await PostgresConsoleStore(pool: pool).createKey(name: name, scope: scope, text: text, by: actor(environment))
                CommandLineInterface.printError("created api key \(key.id) '\(key.name)' (scope \(key.scope.rawValue)); "
                                                + "it is shown once, below: keep it in the service's secret store")
                CommandLineInterface.printLine(text)
                return 0
            } catch DomainError.conflict {
                CommandLineInterface.printError("market09: error: an api key named '\(name)' exists; revoke it or choose another name")
                return 1
            }
        }
    }

    private static func listKeys(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["database-url"])
        _ = try parsed.positionals()
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let keys = try await PostgresServiceKeyRepository(pool: pool).list()
            if keys.isEmpty { CommandLineInterface.printLine("no api keys") }
            for key in keys {
                let used = key.lastUsedAt.map { "last used \($0.formatted(.iso8601))" } ?? "never used"
                let state = key.revokedAt.map { "revoked \($0.formatted(.iso8601))" } ?? "live"
                CommandLineInterface.printLine("\(key.id)  \(key.name)  \(key.scope.rawValue)  \(state)  created \(key.createdAt.formatted(.iso8601))  \(used)")
            }
            return 0
        }
    }

    private static func revokeKey(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, options: ["database-url"])
        let target = try parsed.positionals("<name|id>")[0]
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            guard let key = try await PostgresConsoleStore(pool: pool).revokeKey(nameOrID: target, by: actor(environment)) else {
                CommandLineInterface.printError("market09: error: no api key \(target)")
                return 1
            }
            CommandLineInterface.printLine("revoked api key \(key.id) '\(key.name)'")
            return 0
        }
    }
}
