import Domain
import Foundation
import PostgresDriver

/// The audit log's one writer: an entry written on the connection of the change it
/// records, inside that change's transaction, with the changed row before and after.
enum AuditTrail {
    /// The row `query` selects, as JSON text (`to_jsonb` of it), or `nil` when there is none.
    static func snapshot(_ query: SQL, _ connection: PostgresConnection) throws -> String? {
        try connection.query("SELECT to_jsonb(s)::text FROM (\(query)) s").first?.decode(0)
    }

    static func record(_ actor: AdminActor, action: String, target: String, before: String?, after: String?,
                       _ connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO admin_audit (actor_id, actor, channel, address, action, target, before, after)
            VALUES (\(actor.userID?.rawValue)::uuid, \(actor.name), \(actor.channel.rawValue), \(actor.address), \(action), \(target),
                    \(before)::jsonb, \(after)::jsonb)
            """)
    }

    /// Runs `change` between two snapshots of `row` and records the entry when something
    /// was changed (`change` returns whether it did).
    static func audited<T>(_ actor: AdminActor, action: String, target: String, row: SQL, _ connection: PostgresConnection,
                           _ change: () throws -> (T, changed: Bool)) throws -> T {
        let before = try snapshot(row, connection)
        let (result, changed) = try change()
        if changed {
            try record(actor, action: action, target: target, before: before, after: try snapshot(row, connection), connection)
        }
        return result
    }
}
