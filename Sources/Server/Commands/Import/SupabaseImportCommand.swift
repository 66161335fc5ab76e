import App
import Foundation
import HTTPServer
import Persistence
import Workers

/// `market09 import supabase DIRECTORY`: the 09Market Supabase project's data, from its
/// tables' CSV exports, in one transaction.
enum SupabaseImportCommand {
    static let help = """
        Usage: market09 import supabase DIRECTORY [--media EXPORT --storage-url URL] [--database-url URL]

        Imports the 09Market Supabase project from CSV exports with a header row (the
        dashboard's "Export to CSV", or psql's \\copy ... TO ... CSV HEADER; docs/supabase.md, "Moving
        the 09Market app from Supabase"): users.csv (public.users), identities.csv
        (auth.identities), influencers.csv, posts.csv, likes.csv, follows.csv. A missing file
        is an empty table. Users with a Google or Apple identity keep their ids and sign in
        to the same accounts; posts and influencers get new ids, their text ids kept in
        supabase_post_ids and supabase_influencer_ids. Rows this schema refuses are left out
        and counted. One transaction: all or nothing; importing again inserts nothing.
        Google and Apple identities are linked only to users the import creates: one whose
        user id names an account already here is left out, listed, and the exit code is 1.
        With --media and --storage-url, the bucket's images follow (market09 import
        supabase-media, after the tables' transaction).
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: [], options: ["database-url", "media", "storage-url"])
        let directory = try parsed.positionals("supabase", "DIRECTORY")[1]
        guard (parsed.option("media") == nil) == (parsed.option("storage-url") == nil) else {
            throw UsageError("--media and --storage-url go together: the bucket's download and its public base URL")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("\(directory) is not a directory of CSV exports")
        }
        let export = try await BlockingWork.run(name: "import-read") { try read(directory) }
        guard export.tables.values.contains(where: { !$0.isEmpty }) else {
            throw UsageError("\(directory) holds none of users.csv, identities.csv, influencers.csv, posts.csv, likes.csv, follows.csv")
        }
        let code = await DatabaseTarget.withPool(parsed, environment) { pool in
            let (counts, unlinked) = try await PostgresSupabaseImporter(pool: pool).run(export)
            for count in counts {
                CommandLineInterface.printLine("\(count.table): \(count.inserted) inserted of \(count.read) read")
            }
            var code: Int32 = 0
            if !unlinked.isEmpty {
                // Linking them would hand an existing account to whoever holds the export's identity.
                CommandLineInterface.printError("market09: error: \(unlinked.count) identities not linked: their user ids belong to accounts that existed before this import")
                for identity in unlinked.prefix(20) { CommandLineInterface.printError("  \(identity.provider) identity of user \(identity.userID)") }
                code = 1
            }
            return code
        }
        guard code == 0, let media = parsed.option("media"), let storageURL = parsed.option("storage-url") else { return code }
        var mediaArguments = ["supabase-media", media, "--storage-url", storageURL]
        if let url = parsed.option("database-url") { mediaArguments += ["--database-url", url] }
        return try await SupabaseMediaImportCommand.run(arguments: mediaArguments, environment: environment)
    }

    /// Each table's rows, cells by header name; a missing file is an empty table.
    static func read(_ directory: String) throws -> SupabaseExport {
        var tables: [String: [[String: String]]] = [:]
        for (table, _) in SupabaseExport.columns {
            let path = (directory as NSString).appendingPathComponent(table + ".csv")
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            let rows = CSV.rows(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
            guard let header = rows.first?.cells.map({ $0.trimmingCharacters(in: .whitespaces) }) else { continue }
            tables[table] = rows.dropFirst().filter { $0.cells != [""] }.map { row in
                Dictionary(zip(header, row.cells), uniquingKeysWith: { first, _ in first })
            }
        }
        return SupabaseExport(tables: tables)
    }
}
