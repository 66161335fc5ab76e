import Cryptography
import Domain
import Foundation
import PostgresDriver
import Workers

/// ``MediaLibrary`` over a directory and the `uploads` table (migration 0020). Files are
/// named by their SHA-256, so one content is one file however often it is uploaded, and a
/// name never changes what it serves (`Cache-Control: immutable`). A file enters the
/// directory by `rename(2)` from `incoming/` in the same directory: readers see all of it
/// or nothing. Adopting and pruning exclude each other through an advisory lock, so a
/// prune never removes a file an upload of the same content has just recorded.
/// File work runs on `workers`, never on the cooperative pool; serving reads (a `stat`)
/// runs on `readers` of its own, so `GET /media` never waits behind (or is refused for)
/// uploads being copied and hashed.
public struct FileMediaLibrary: MediaLibrary {
    private let directory: String
    private let pool: PostgresPool
    private let workers: BoundedWorkers
    private let readers: BoundedWorkers
    /// `pg_advisory_xact_lock` key of the media directory.
    private static let lockKey = 0x6D65_6469_6100

    /// A library over `directory`, created when the first upload arrives (`incoming/`
    /// private to this process's user).
    public init(directory: String, pool: PostgresPool, workers: BoundedWorkers, readers: BoundedWorkers) {
        self.directory = directory
        self.pool = pool
        self.workers = workers
        self.readers = readers
    }

    public func incomingFile() async throws -> String {
        let directory = directory
        return try await workers.run {
            try FileManager.default.createDirectory(atPath: directory + "/incoming", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            var template = Array((directory + "/incoming/upload-XXXXXX").utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else { throw MediaStorageError(message: "cannot create a file in \(directory)/incoming") }
            close(descriptor)
            return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    public func adopt(_ path: String, by user: UserID?) async throws -> StoredMedia {
        let (head, bytes, digest) = try await workers.run { try Self.read(path) }
        guard let kind = MediaKind(sniffing: head) else { throw MediaError.unsupportedType }
        let media = StoredMedia(name: digest + "." + kind.fileExtension, kind: kind, bytes: bytes, size: ImageSize(kind, head: head))
        let target = directory + "/" + media.name
        try await pool.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.lockKey))")
            // Same content, same name: the file there already is this one.
            guard rename(path, target) == 0 else { throw MediaStorageError(message: "cannot move an upload into \(target)") }
            // A repeated upload starts its 24 hours again.
            try connection.execute("""
                INSERT INTO uploads (name, content_type, bytes, width, height, uploaded_by) VALUES (\(media.name), \(kind.contentType), \(bytes), \(media.size?.width), \(media.size?.height), \(user?.rawValue))
                ON CONFLICT (name) DO UPDATE SET created_at = now()
                """)
        }
        return media
    }

    public func file(named name: String) async throws -> MediaFile? {
        let path = directory + "/" + name
        guard let kind = MediaKind.allCases.first(where: { name.hasSuffix("." + $0.fileExtension) }) else { return nil }
        let bytes: Int? = try await readers.run {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        }
        return bytes.map { MediaFile(path: path, kind: kind, bytes: $0) }
    }

    public func prune(before cutoff: Date) async throws -> [String] {
        let directory = directory
        return try await pool.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
            let names: [String] = try connection.query("""
                DELETE FROM uploads u WHERE u.created_at < \(cutoff)
                  AND NOT EXISTS (SELECT 1 FROM posts p WHERE media_name(p.display_url) = u.name)
                  AND NOT EXISTS (SELECT 1 FROM hidden_posts h WHERE media_name(h.display_url) = u.name)
                  AND NOT EXISTS (SELECT 1 FROM users s WHERE media_name(s.profile_url) = u.name)
                  AND NOT EXISTS (SELECT 1 FROM influencers i WHERE media_name(i.profile_pic_url) = u.name)
                RETURNING u.name
                """).map { try $0.decode(0) }
            // Under the lock, before the rows' deletion commits: an upload of the same
            // content waits, then writes the file again.
            for name in names { unlink(directory + "/" + name) }
            return names
        }
    }

    public func capacity() async throws -> MediaCapacity {
        let directory = directory
        let free = try await readers.run { () -> Int in
            var info = statvfs()
            // Before the first upload the directory may not exist yet: its parent's disk.
            var path = directory
            while statvfs(path, &info) != 0 {
                let parent = (path as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != path else { throw MediaStorageError(message: "cannot read the free space of \(directory)") }
                path = parent
            }
            return Int(info.f_bavail) * Int(info.f_frsize)
        }
        // Unreferenced uploads are at most a lifetime old (older ones are pruned): the
        // created_at index bounds the scan to a day's uploads.
        let unreferenced: Int = try await pool.statement { connection in
            try connection.query("""
                SELECT COALESCE(sum(u.bytes), 0)::bigint FROM uploads u
                WHERE u.created_at > now() - interval '25 hours'
                  AND NOT EXISTS (SELECT 1 FROM posts p WHERE media_name(p.display_url) = u.name)
                  AND NOT EXISTS (SELECT 1 FROM hidden_posts h WHERE media_name(h.display_url) = u.name)
                  AND NOT EXISTS (SELECT 1 FROM users s WHERE media_name(s.profile_url) = u.name)
                  AND NOT EXISTS (SELECT 1 FROM influencers i WHERE media_name(i.profile_pic_url) = u.name)
                """).single().decode(0)
        }
        return MediaCapacity(freeBytes: free, unreferencedBytes: unreferenced)
    }

    /// The first 256 KB (enough for the magic number and, nearly always, the dimensions),
    /// the size and the SHA-256 of the file, read once.
    private static func read(_ path: String) throws -> (head: [UInt8], bytes: Int, digest: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaStorageError(message: "cannot read \(path)") }
        defer { close(descriptor) }
        var digest = SHA256.Incremental()
        var head: [UInt8] = []
        var bytes = 0
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if head.count < chunk.count { head += chunk[..<min(count, chunk.count - head.count)] }
            digest.update(chunk[..<count])
            bytes += count
        }
        return (head, bytes, digest.finalHex())
    }
}

/// The media directory could not be written or read.
public struct MediaStorageError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
