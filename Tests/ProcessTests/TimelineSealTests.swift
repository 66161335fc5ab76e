import Foundation
import Persistence
import PostgresDriver
import TestSupport
import Testing

/// The gap a failover leaves in the archive, made on purpose and closed: a primary whose
/// archiving fails while its standby receives everything, then dies; the standby is
/// promoted. Its pg_wal holds the old timeline's segments the archive lacks, and
/// TimelineSeal pushes exactly those, once.
@Suite struct TimelineSealTests {
    @Test(.enabled(if: PgBackRest.isInstalled)) func theNewPrimaryPushesTheSegmentsTheOldOneNeverArchived() throws {
        let root = "/tmp/m09-seal-" + UUID().uuidString.prefix(8).lowercased()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let primary = try EmbeddedPostgres(directory: URL(fileURLWithPath: root + "/primary"), settings: ["wal_keep_size=64MB"])
        try primary.start()
        defer { try? primary.stop(immediately: true) }
        let backups = EmbeddedBackups(cluster: primary, settings: .init(repository: root + "/repository"))
        try backups.enable()
        // wal_keep_size as scripts/cluster sets it: the old timeline's segments outlive the
        // checkpoint after the promotion.
        let standby = try primary.startStreamingReplica(in: URL(fileURLWithPath: root + "/standby"), settings: ["wal_keep_size=64MB"])
        defer { try? standby.stop(immediately: true) }

        // Archiving breaks; three segments are written, reach the standby, and are never archived.
        let connection = try PostgresConnection(url: primary.url(database: "postgres"))
        try connection.execute(script: "ALTER SYSTEM SET archive_command = '/bin/false'")
        try connection.execute(script: "SELECT pg_reload_conf()")
        try connection.execute(script: "CREATE TABLE written (n int)")
        var unarchived: [String] = []
        for round in 0..<3 {
            try connection.execute(script: "INSERT INTO written SELECT generate_series(1, 1000) + \(raw: round * 1000)")
            unarchived.append(try connection.query("SELECT pg_walfile_name(pg_current_wal_lsn())").single().decode(0))
            try connection.execute(script: "SELECT pg_switch_wal()")
        }
        let end: String = try connection.query("SELECT pg_current_wal_lsn()::text").single().decode(0)
        let promoted = try PostgresConnection(url: standby.url(database: "postgres"))
        for _ in 0..<200 {
            let replayed: Bool = try promoted.query("SELECT pg_last_wal_replay_lsn() >= \(end)::pg_lsn").single().decode(0)
            if replayed { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        connection.close()
        try primary.stop(immediately: true)
        try promoted.execute(script: "SELECT pg_promote()")
        #expect(try TimelineSeal.currentTimeline(promoted) == 2)

        // The gap: the archive lacks what the standby received.
        let copy = primary.directory.appendingPathComponent("fetched").path  // the tool's account writes it
        #expect(throws: PgBackRest.Failure.self) { try backups.tool.run("archive-get", operands: [unarchived[0], copy]) }

        let seal = TimelineSeal(tool: backups.tool)
        let first = try seal.seal(promoted, before: 2)
        #expect(Set(unarchived).isSubset(of: Set(first.pushed)), "pushed \(first.pushed), expected at least \(unarchived)")
        #expect(first.pushed.allSatisfy { $0.hasPrefix("00000001") })
        let again = try seal.seal(promoted, before: 2)
        #expect(again.pushed.isEmpty && again.present == first.pushed.count + first.present, "\(again)")
        // The archive returns what was pushed.
        try backups.tool.run("archive-get", operands: [unarchived[0], copy])
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)).count == (try promoted.query("""
            SELECT setting::int8 FROM pg_settings WHERE name = 'wal_segment_size'
            """).single().decode(0, as: Int.self)))
        promoted.close()
    }
}
