import App
import Domain
import Foundation
import HTTPServer
import Persistence
import PostgresDriver
import Workers

/// `market09 import supabase-media EXPORT --storage-url URL`: the images of the old
/// project's public bucket that imported rows show, adopted into the media library and the
/// rows rewritten to this server's `/media/` URLs, so switching the old project off loses no
/// picture.
enum SupabaseMediaImportCommand {
    static let help = """
        Usage: market09 import supabase-media EXPORT --storage-url URL [--dry-run] [--database-url URL]

        EXPORT is the bucket as the Supabase CLI downloads it (object paths as folders:
        supabase storage cp -r ss:///media EXPORT --experimental). URL is the bucket's public
        base, https://<project>.supabase.co/storage/v1/object/public/media. Every object a
        post's display_url, a user's profile_url or an influencer's profile_pic_url shows is
        checked like an upload (JPEG, PNG, HEIC, WebP, at most MAX_UPLOAD_BYTES), stored once
        per content in MEDIA_DIR, and the rows are rewritten to MEDIA_BASE_URL/media/<name>, a
        transaction per 100 objects. Missing or refused objects are listed with the rows
        showing them, which keep their old URL. Old URLs written later are mapped on arrival.
        Running it again changes nothing; an interrupted run resumes. --dry-run lists what
        would be adopted, with sizes, and writes nothing. Exit code 1 when an object is
        missing or refused.
        """

    static func run(arguments: [String], environment: [String: String]) async throws -> Int32 {
        let parsed = try ParsedArguments(arguments, flags: ["dry-run"], options: ["storage-url", "database-url"])
        let export = try parsed.positionals("supabase-media", "EXPORT")[1]
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: export, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("\(export) is not a directory (download the bucket with the Supabase CLI first)")
        }
        guard var storageURL = parsed.option("storage-url") else {
            throw UsageError("--storage-url is required: https://<project>.supabase.co/storage/v1/object/public/<bucket>")
        }
        while storageURL.hasSuffix("/") { storageURL.removeLast() }
        guard storageURL.range(of: "^https?://[^/?#]+/storage/v1/object/public/[^/?#]+$", options: .regularExpression) != nil else {
            throw UsageError("--storage-url must be a bucket's public base: https://<project>.supabase.co/storage/v1/object/public/<bucket>")
        }
        let dryRun = parsed.flag("dry-run")
        guard dryRun || environment["MEDIA_BASE_URL"] != nil else {
            throw UsageError("set MEDIA_BASE_URL (and MEDIA_DIR) as the server has them: rewritten URLs are MEDIA_BASE_URL/media/<name>")
        }
        let media = try Configuration.fromEnvironment(environment).media
        return await DatabaseTarget.withPool(parsed, environment) { pool in
            try await SupabaseMediaImport(pool: pool, export: export, storageURL: storageURL, media: media).run(dryRun: dryRun)
        }
    }
}

/// One run of the media import (see ``SupabaseMediaImportCommand``).
struct SupabaseMediaImport {
    let pool: PostgresPool
    let export: String
    let storageURL: String
    let media: MediaSettings

    /// What looking at an object's file found.
    enum Check {
        case image(path: String, bytes: Int)
        case missing
        case refused(String)
    }

    private static let batchSize = 100

    func run(dryRun: Bool) async throws -> Int32 {
        let store = PostgresSupabaseMedia(pool: pool)
        let references = try await store.references(storageURL: storageURL)
        let rowCount = references.reduce(0) { $0 + $1.rowCount }
        CommandLineInterface.printLine("media: \(references.count) objects under \(storageURL) shown by \(rowCount) rows")
        let workers = BoundedWorkers(name: "media-import", threads: 1, queueLimit: 1)
        let library = FileMediaLibrary(directory: media.directory, pool: pool, workers: workers, readers: workers)
        var adopted = (count: 0, bytes: 0), alreadyThere = 0
        var problems: [(kind: String, reference: SupabaseMediaReference, reason: String)] = []
        var rewrite = SupabaseMediaRewrite()
        let progress = ProgressReporter(label: "media", total: references.count, unit: "objects")
        for (index, batch) in stride(from: 0, to: references.count, by: Self.batchSize).map({ references[$0..<min($0 + Self.batchSize, references.count)] }).enumerated() {
            var stored: [(object: String, media: StoredMedia, url: String)] = []
            var rewritten: [String] = []
            for reference in batch {
                if reference.imported {
                    alreadyThere += 1
                    rewritten.append(reference.object)
                    continue
                }
                switch try await check(reference.object) {
                case .missing: problems.append(("missing", reference, "not in \(export)"))
                case .refused(let reason): problems.append(("refused", reference, reason))
                case .image(let path, let bytes) where dryRun:
                    CommandLineInterface.printLine("would adopt \(reference.object) (\(Self.size(bytes)), \(reference.rowCount) rows)")
                    adopted.count += 1
                    adopted.bytes += bytes
                    _ = path
                case .image(let path, _):
                    do {
                        let file = try await adopt(path, into: library)
                        stored.append((reference.object, file, media.publicBaseURL + "/media/" + file.name))
                        rewritten.append(reference.object)
                        adopted.count += 1
                        adopted.bytes += file.bytes
                    } catch MediaError.unsupportedType {
                        problems.append(("refused", reference, "not a JPEG, PNG, HEIC or WebP image"))
                    }
                }
            }
            if !dryRun && !rewritten.isEmpty {
                let batchRewrite = try await store.record(stored, rewriting: rewritten)
                rewrite.posts += batchRewrite.posts
                rewrite.users += batchRewrite.users
                rewrite.influencers += batchRewrite.influencers
            }
            progress.update(min((index + 1) * Self.batchSize, references.count), rejected: problems.count)
        }
        progress.finish()
        let missing = problems.count { $0.kind == "missing" }
        let refused = problems.count { $0.kind == "refused" }
        let verb = dryRun ? "would adopt" : "adopted"
        CommandLineInterface.printLine("\(verb) \(adopted.count) (\(Self.size(adopted.bytes))), already there \(alreadyThere), missing \(missing), refused \(refused)")
        if dryRun {
            let rows = references.filter { !$0.imported }.reduce(0) { $0 + $1.rowCount }
            CommandLineInterface.printLine("nothing written (dry run); at most \(rows) rows would be rewritten")
        } else {
            CommandLineInterface.printLine("rewrote \(rewrite.total) rows (posts \(rewrite.posts), users \(rewrite.users), influencers \(rewrite.influencers))")
        }
        for problem in problems {
            let more = problem.reference.rowCount > problem.reference.rows.count ? ", …" : ""
            CommandLineInterface.printError("\(problem.kind): \(problem.reference.object): \(problem.reason) (shown by \(problem.reference.rows.joined(separator: ", "))\(more); left as it was)")
        }
        return problems.isEmpty ? 0 : 1
    }

    /// The export's file for `object` (`<bucket>/<path>`, percent-encoded as in its URL):
    /// `EXPORT/<bucket>/<path>` or `EXPORT/<path>`, resolved through every link in every
    /// component: a path that leads out of the export (a linked directory or file) is
    /// refused, so no file from elsewhere on the machine lands in the public media store;
    /// anything but a regular file counts as missing. The resolved path is what is copied.
    private func check(_ object: String) async throws -> Check {
        guard let decoded = object.removingPercentEncoding, !decoded.contains("\0") else { return .refused("the object's name is not valid") }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count >= 2, !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            return .refused("the object's path leaves the export")
        }
        let candidates = [export + "/" + decoded, export + "/" + components.dropFirst().joined(separator: "/")]
        let limit = media.maxUploadBytes
        let export = export
        return try await BlockingWork.run(name: "media-import") {
            for candidate in candidates {
                if Self.leadsOut(candidate, export: export) { return .refused("the path leaves the export through a link") }
                var info = stat()
                guard let path = Self.resolved(candidate) else { continue }
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                let bytes = Int(info.st_size)
                guard bytes > 0 else { return .refused("the file is empty") }
                guard bytes <= limit else { return .refused("larger than MAX_UPLOAD_BYTES (\(limit) bytes)") }
                guard let handle = FileHandle(forReadingAtPath: path) else { return .missing }
                defer { try? handle.close() }
                let head = [UInt8](try handle.read(upToCount: 64) ?? Data())
                guard MediaKind(sniffing: head) != nil else { return .refused("not a JPEG, PNG, HEIC or WebP image") }
                return .image(path: path, bytes: bytes)
            }
            return .missing
        }
    }

    /// `path` with every link of every component followed (`realpath`), or `nil` when it
    /// does not lead to anything.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Whether some component on the way to `path`, resolved, lies outside the export
    /// (followed as far as the components exist; a dangling link is only missing).
    private static func leadsOut(_ path: String, export: String) -> Bool {
        guard let root = resolved(export) else { return false }
        var prefix = export
        for component in path.dropFirst(export.count + 1).split(separator: "/") {
            prefix += "/" + component
            guard let step = resolved(prefix) else { return false }
            if !(step == root || step.hasPrefix(root + "/")) { return true }
        }
        return false
    }

    /// A copy of the export's file adopted into the library (the export stays as it is).
    private func adopt(_ path: String, into library: FileMediaLibrary) async throws -> StoredMedia {
        let incoming = try await library.incomingFile()
        do {
            try await BlockingWork.run(name: "media-import") {
                unlink(incoming)
                try FileManager.default.copyItem(atPath: path, toPath: incoming)
            }
            return try await library.adopt(incoming, by: nil)
        } catch {
            unlink(incoming)
            throw error
        }
    }

    private static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MB", Double(bytes) / Double(1 << 20)) : String(format: "%.0f KB", (Double(bytes) / 1024).rounded(.up))
    }
}
