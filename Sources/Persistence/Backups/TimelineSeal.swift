import Foundation
import PostgresDriver

/// After a failover, the archive's old timeline made whole from the new primary.
///
/// With `archive_mode=on` (pgBackRest refuses `always`), a standby archives nothing: the
/// segments the old primary closed but had not pushed when it died exist only in the
/// standby's `pg_wal`, and once promoted it never archives them (PostgreSQL's docs,
/// "Continuous Archiving in Standby"). A restore through that stretch would stop at the
/// gap. So the backup host, on seeing a new timeline, reads the older timelines' complete
/// segments from the new primary (`pg_ls_waldir`, `pg_read_binary_file`: superuser) and
/// pushes them with pgBackRest, which keeps a segment it already has and refuses a
/// different one (then the archived copy, the old primary's own, stands).
///
/// Blocking: call it from a thread you own.
public struct TimelineSeal: Sendable {
    public let tool: PgBackRest
    /// Where segments are written for the tool to push (removed after each).
    public let scratch: String

    public init(tool: PgBackRest, scratch: String = FileManager.default.temporaryDirectory.path) {
        self.tool = tool
        self.scratch = scratch
    }

    /// What a pass did.
    public struct Outcome: Sendable, Equatable {
        /// Segments the archive lacked and now has.
        public var pushed: [String] = []
        /// Segments the archive had already (same content, or the old primary's own).
        public var present = 0

        public init() {}
    }

    /// A WAL segment file's name: 24 hex digits, the first 8 its timeline.
    static func timeline(ofSegment name: String) -> Int? {
        guard name.utf8.count == 24, name.utf8.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) }) else { return nil }
        return Int(name.prefix(8), radix: 16)
    }

    /// The timeline the primary behind `connection` writes now (nil on a standby).
    public static func currentTimeline(_ connection: PostgresConnection) throws -> Int? {
        let name: String? = try connection.query("""
            SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_walfile_name(pg_current_wal_lsn()) END
            """).single().decode(0)
        return name.flatMap(timeline(ofSegment:))
    }

    /// Pushes every complete segment of a timeline before `timeline` that `connection`'s
    /// primary holds in pg_wal.
    public func seal(_ connection: PostgresConnection, before timeline: Int) throws -> Outcome {
        let names: [String] = try connection.query("SELECT name FROM pg_ls_waldir() ORDER BY name").map { try $0.decode(0) }
        var outcome = Outcome()
        for name in names {
            guard let segmentTimeline = Self.timeline(ofSegment: name), segmentTimeline < timeline else { continue }
            // base64 in the text protocol: 4/3 of the segment's bytes rather than hex's 2.
            let text: String? = try connection.query("""
                SELECT encode(pg_read_binary_file('pg_wal/' || \(name), 0, (SELECT setting::int8 FROM pg_settings WHERE name = 'wal_segment_size'), true), 'base64')
                """).single().decode(0)
            guard let text, let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { continue }  // recycled meanwhile
            let directory = scratch + "/market09-seal-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/" + name
            guard FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o644]) else {
                throw PgBackRest.Failure(command: "archive-push", output: "could not write \(path)")
            }
            do {
                let output = try tool.run("archive-push", ["--no-archive-async", "--reset-archive-push-queue-max"], operands: [path])
                // "WAL file '…' already exists in the repo1 archive with the same checksum"
                if output.contains("with the same checksum") { outcome.present += 1 } else { outcome.pushed.append(name) }
            } catch let failure as PgBackRest.Failure where failure.output.contains("archive with a different checksum") {
                outcome.present += 1
            }
        }
        return outcome
    }
}
