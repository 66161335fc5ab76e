import Cryptography
import Foundation
import PostgresDriver

/// One versioned SQL file from `migrations/`, named `NNNN_description.sql`.
public struct Migration: Sendable, Equatable {
    /// The number before the first underscore.
    public let version: Int
    /// The file name, e.g. `0001_users_and_sessions.sql`.
    public let fileName: String
    /// The SQL script, run as one transaction.
    public let sql: String
    /// SHA-256 (hex) of the file's bytes; an applied file whose checksum changes is refused.
    public let checksum: String

    public init(version: Int, fileName: String, contents: Data) {
        self.version = version
        self.fileName = fileName
        self.sql = String(decoding: contents, as: UTF8.self)
        self.checksum = SHA256.hex(contents)
    }

    /// Reads every `NNNN_name.sql` file of `directory`, ordered by version.
    ///
    /// A `.sql` file whose name does not follow the pattern, or two files with the same
    /// version, are errors: silently skipping either would leave the schema incomplete.
    public static func load(from directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError.directoryUnreadable(directory.path)
        }
        var migrations: [Migration] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            guard let version = parseVersion(name) else {
                throw MigrationError.badFileName(name)
            }
            if let clash = migrations.first(where: { $0.version == version }) {
                throw MigrationError.duplicateVersion(version, clash.fileName, name)
            }
            let contents = try Data(contentsOf: directory.appendingPathComponent(name))
            migrations.append(Migration(version: version, fileName: name, contents: contents))
        }
        return migrations.sorted { $0.version < $1.version }
    }

    private static func parseVersion(_ name: String) -> Int? {
        let stem = name.dropLast(4)
        let parts = stem.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 4, parts[0].allSatisfy(\.isASCII),
              let version = Int(parts[0]), version > 0,
              parts[1].allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
        else { return nil }
        return version
    }

    /// Finds the migrations directory: `MIGRATIONS_DIR` when set, otherwise a `migrations`
    /// folder beside the executable or in one of its parent directories (a checkout's
    /// `.build/<config>/market09`, or `/app/market09` next to `/app/migrations`).
    public static func locateDirectory(environment: [String: String], executablePath: String) throws -> URL {
        if let configured = environment["MIGRATIONS_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        var directory = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while true {
            let candidate = directory.appendingPathComponent("migrations", isDirectory: true)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return candidate
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        throw MigrationError.directoryNotFound(executablePath)
    }
}
