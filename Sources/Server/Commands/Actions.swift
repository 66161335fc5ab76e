/// The actions of a command (`admin api-keys create|list|revoke`), chosen by the first
/// argument: one table gives the dispatch and both usage errors, so a new action cannot be
/// reachable but missing from the message (or listed but unreachable).
struct Actions {
    typealias Action = ([String], [String: String]) async throws -> Int32

    /// The command's name as typed, for the messages.
    let command: String
    /// The actions in the order the messages list them.
    let table: KeyValuePairs<String, Action>

    func run(_ arguments: [String], _ environment: [String: String]) async throws -> Int32 {
        let names = table.map(\.key)
        guard let name = arguments.first else {
            throw UsageError("\(command) needs \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")")
        }
        guard let action = table.first(where: { $0.key == name })?.value else {
            throw UsageError("unknown \(command) action '\(name)' (\(names.joined(separator: ", ")))")
        }
        return try await action(Array(arguments.dropFirst()), environment)
    }
}
