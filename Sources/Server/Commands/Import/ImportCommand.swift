import App
import Domain
import Foundation
import HTTPServer
import Persistence
import Workers

/// `market09 import influencers|posts FILE`: validated upserts with a rejects file.
enum ImportCommand {
    static let help = """
        Usage: market09 import influencers|posts FILE [--format json|ndjson|csv] [--rejects PATH] [--atomic] [--database-url URL]
               market09 import supabase DIRECTORY [--media EXPORT --storage-url URL]   (see: market09 import supabase --help)
               market09 import supabase-media EXPORT --storage-url URL [--dry-run]   (see: market09 import supabase-media --help)

        Upserts rows by natural key (influencers by username; posts by influencer, product
        and buying window), so importing the same file twice changes nothing. FILE is a JSON
        array, NDJSON or CSV with a header row (by extension, or --format). Every row is
        checked with the API's rules; rejected rows go to the rejects file (default
        FILE.rejects.ndjson) with their line and reason. Exit code 1 when any row was rejected.
        Formats and samples: examples/.

        Options:
          --format F       json, ndjson or csv.
          --rejects PATH   Where rejected rows are written.
          --atomic         All or nothing: if any row is rejected, nothing is imported.
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        if arguments.first == "supabase" {
            if arguments.contains("--help") || arguments.contains("-h") { CommandLineInterface.printLine(SupabaseImportCommand.help); return 0 }
            return try await SupabaseImportCommand.run(arguments: arguments, environment: environment)
        }
        if arguments.first == "supabase-media" {
            if arguments.contains("--help") || arguments.contains("-h") { CommandLineInterface.printLine(SupabaseMediaImportCommand.help); return 0 }
            return try await SupabaseMediaImportCommand.run(arguments: arguments, environment: environment)
        }
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            CommandLineInterface.printLine(help)
            return arguments.isEmpty ? 2 : 0
        }
        let parsed = try ParsedArguments(arguments, flags: ["atomic"], options: ["format", "rejects", "database-url"])
        let positionals = try parsed.positionals("influencers|posts", "FILE")
        guard ["influencers", "posts"].contains(positionals[0]) else { throw UsageError("import needs influencers or posts, not '\(positionals[0])'") }
        let kind = positionals[0], path = positionals[1]
        let format = try ImportFile.Format.of(path: path, explicit: parsed.option("format"))
        let rejectsPath = parsed.option("rejects") ?? path + ".rejects.ndjson"
        let atomic = parsed.flag("atomic")
        let data = try await readFile(path)
        let records: [Result<ImportRecord, UnreadableRecord>]
        do {
            records = try ImportFile.read(data, format: format)
        } catch let malformed as ImportFile.Malformed {
            CommandLineInterface.printError("market09: error: \(path): \(malformed.description)")
            return 1
        }

        return await DatabaseTarget.withPool(parsed, environment) { pool in
            let categories = CategoryResolver(categories: PostgresCategoryRepository(pool: pool))
            var rejects: [(line: Int, reason: String)] = []
            var outcomes: [ImportOutcome] = []
            var lines: [Int] = []
            let importer = PostgresImporter(pool: pool)
            // Rows are read first (a rejected one is listed with its line), then merged a
            // batch at a time; with --atomic nothing is written once any row was refused.
            func load<Row: Sendable>(batch: Int, line: (Row) -> Int, _ read: (ImportRecord) async throws -> Row,
                                     _ merge: ([Row]) async throws -> [ImportOutcome]) async throws {
                var rows: [Row] = []
                for record in records {
                    do { rows.append(try await read(try record.get())) } catch { rejects.append(ImportRows.reject(record, error)) }
                }
                guard !(atomic && !rejects.isEmpty) else { return }
                outcomes = try await inBatches(rows, of: batch, atomic: atomic, kind: kind, rejected: rejects.count, merge)
                lines = rows.map(line)
            }
            if kind == "influencers" {
                try await load(batch: 500, line: \.line, { try await ImportRows.influencer($0, categories: categories) }) {
                    try await importer.influencers($0, atomic: atomic, batchSize: 500)
                }
            } else {
                let now = Date()
                try await load(batch: 5_000, line: \.line, { try await ImportRows.post($0, categories: categories, now: now) }) {
                    try await importer.posts($0, source: .import, atomic: atomic, batchSize: 5_000)
                }
            }
            for (line, outcome) in zip(lines, outcomes) {
                switch outcome {
                case .rejected(let reason), .conflict(let reason), .skipped(let reason): rejects.append((line, reason))
                case .inserted, .updated, .unchanged: break
                }
            }
            rejects.sort { $0.line < $1.line }
            try await writeRejects(rejects, to: rejectsPath)
            let rolledBack = atomic && !rejects.isEmpty
            let count = { (wanted: ImportOutcome) in rolledBack ? 0 : outcomes.filter { $0 == wanted }.count }
            var summary = "\(kind): imported \(count(.inserted)), updated \(count(.updated)), unchanged \(count(.unchanged)), rejected \(rejects.count)"
            if !rejects.isEmpty { summary += " (see \(rejectsPath))" }
            if rolledBack { summary += "; --atomic: nothing was imported" }
            CommandLineInterface.printLine(summary)
            return rejects.isEmpty ? 0 : 1
        }
    }

    /// The file's bytes, or one line saying why not (a missing file was a raw
    /// `NSCocoaErrorDomain Code=260` dump).
    private static func readFile(_ path: String) async throws -> Data {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path) does not exist") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw CommandFailure("\(path) cannot be read (permissions?)") }
        do {
            return try await BlockingWork.run(name: "import-read") { try Data(contentsOf: URL(fileURLWithPath: path)) }
        } catch {
            throw CommandFailure("\(path) cannot be read (a directory?)")
        }
    }

    /// `rows` through `merge` a batch at a time (one call when `atomic`: one transaction),
    /// with progress on stderr.
    private static func inBatches<Row: Sendable>(_ rows: [Row], of size: Int, atomic: Bool, kind: String, rejected: Int,
                                                 _ merge: ([Row]) async throws -> [ImportOutcome]) async throws -> [ImportOutcome] {
        let progress = ProgressReporter(label: kind, total: rows.count)
        if atomic {
            progress.note("\(rows.count) rows in one transaction")
            return try await merge(rows)
        }
        var outcomes: [ImportOutcome] = []
        for start in stride(from: 0, to: rows.count, by: size) {
            outcomes += try await merge(Array(rows[start..<min(start + size, rows.count)]))
            progress.update(outcomes.count, rejected: rejected + outcomes.count { !$0.isStored })
        }
        progress.finish()
        return outcomes
    }

    private static func writeRejects(_ rejects: [(line: Int, reason: String)], to path: String) async throws {
        // One JSON object a line, keys in order: {"line":3,"reason":"..."}.
        let body = try rejects.map { reject -> String in
            let object: [String: Any] = ["line": reject.line, "reason": reject.reason]
            let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: json, as: UTF8.self) + "\n"
        }.joined()
        try await BlockingWork.run(name: "import-rejects") {
            if body.isEmpty {
                try? FileManager.default.removeItem(atPath: path)
            } else {
                try Data(body.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
        }
    }
}

extension ImportFile.Format {
    /// The format named by `--format`, else by the file's extension.
    static func of(path: String, explicit: String?) throws -> ImportFile.Format {
        if let explicit {
            guard let format = ImportFile.Format(rawValue: explicit) else { throw UsageError("--format must be json, ndjson or csv") }
            return format
        }
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "json": return .json
        case "ndjson", "jsonl": return .ndjson
        case "csv": return .csv
        default: throw UsageError("cannot tell the format of \(path); pass --format json|ndjson|csv")
        }
    }
}
