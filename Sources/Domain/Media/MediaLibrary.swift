import Foundation

/// Where uploads are kept: a port, so a deployment can put an object store (S3 and the
/// like) behind it. The default keeps content-addressed files in a directory.
public protocol MediaLibrary: Sendable {
    /// A new, empty, private file to write an upload into before ``adopt(_:by:)``; the
    /// caller removes it if it never adopts it.
    func incomingFile() async throws -> String
    /// Takes the written file at `path`: checks its first bytes are an accepted image
    /// (``MediaError/unsupportedType`` otherwise), names it by content, moves it into the
    /// store atomically (one copy per content) and records it as uploaded by `user` (`nil`:
    /// by a service or an import, not an account).
    func adopt(_ path: String, by user: UserID?) async throws -> StoredMedia
    /// The stored file `name`, or `nil`.
    func file(named name: String) async throws -> MediaFile?
    /// Removes uploads made before `cutoff` that no post and no profile refers to, one
    /// instance at a time; their names.
    func prune(before cutoff: Date) async throws -> [String]
    /// What the store has room for now: free bytes where files are written, and bytes of
    /// uploads nothing refers to yet (a recent reading is fine: it bounds, it does not count).
    func capacity() async throws -> MediaCapacity
}

/// Room in the store (see ``MediaLibrary/capacity()``).
public struct MediaCapacity: Sendable, Equatable {
    /// Bytes free on the disk the store writes to (for an unprivileged process).
    public var freeBytes: Int
    /// Bytes of stored uploads that no post and no profile refers to.
    public var unreferencedBytes: Int

    public init(freeBytes: Int, unreferencedBytes: Int) {
        self.freeBytes = freeBytes
        self.unreferencedBytes = unreferencedBytes
    }
}

/// What one account may upload, and what the store keeps in reserve. One account once
/// sent 150 different 1 MiB images in 2.2 s, all accepted, onto the disk the embedded
/// database shares.
public struct UploadLimits: Sendable, Equatable {
    /// Uploads per account per hour (the app uploads one image per post it creates).
    public var perHour = 30
    /// Bytes per account per 24 hours (counted as declared when the head arrives).
    public var bytesPerDay = 100 << 20
    /// Free bytes the media disk keeps: below it uploads are refused (507) before a byte
    /// is written, so the database's disk, when shared, is never the one that fills.
    public var minimumFreeBytes = 1 << 30
    /// Bytes of unreferenced uploads (at most 24 hours old) the store holds in all: beyond
    /// it uploads are refused (507) until posts refer to them or the pruning removes them.
    public var maximumUnreferencedBytes = 2 << 30

    public init() {}
}

/// A stored file as served.
public struct MediaFile: Sendable, Equatable {
    /// Where it is on this machine.
    public let path: String
    public let kind: MediaKind
    public let bytes: Int

    public init(path: String, kind: MediaKind, bytes: Int) {
        self.path = path
        self.kind = kind
        self.bytes = bytes
    }
}

/// Why an upload is refused.
public enum MediaError: Error, Sendable, Equatable {
    /// The bytes are not JPEG, PNG, HEIC or WebP, whatever the client declared.
    case unsupportedType
    /// The account made ``UploadLimits/perHour`` uploads within the hour.
    case rateLimited(retryAfterSeconds: Int)
    /// The account sent ``UploadLimits/bytesPerDay`` within 24 hours.
    case quotaExceeded(retryAfterSeconds: Int)
    /// The store is short of room (free space at its floor, or too many bytes nothing
    /// refers to): nothing is written until it has room again.
    case storageFull
}

/// Use cases of uploads: store, serve, prune.
public struct Uploads: Sendable {
    /// How long an upload nothing refers to is kept (the app uploads, then posts).
    public static let unreferencedLifetime: TimeInterval = 24 * 3600

    private let library: any MediaLibrary
    private let now: @Sendable () -> Date

    public init(library: any MediaLibrary, now: @escaping @Sendable () -> Date) {
        self.library = library
        self.now = now
    }

    /// A file to write an upload into.
    public func incomingFile() async throws -> String {
        try await library.incomingFile()
    }

    /// Stores the upload written at `path`.
    public func adopt(_ path: String, by user: PermanentPrincipal) async throws -> StoredMedia {
        try await library.adopt(path, by: user.userID)
    }

    /// Stores an image a service sent (the feed's automation): no account's upload.
    public func adoptFromService(_ path: String) async throws -> StoredMedia {
        try await library.adopt(path, by: nil)
    }

    /// The stored file `name`; ``DomainError/notFound(_:)`` when there is none.
    public func file(named name: String) async throws -> MediaFile {
        guard StoredMedia.isValidName(name), let file = try await library.file(named: name) else { throw DomainError.notFound("media") }
        return file
    }

    /// Removes what has been unreferenced for ``unreferencedLifetime``.
    public func prune() async throws -> [String] {
        try await library.prune(before: now().addingTimeInterval(-Self.unreferencedLifetime))
    }
}

/// Whether an upload may start, decided from its head before any of its body is read: room
/// in the store first (nothing is counted against the account when the server is full),
/// then the account's uploads this hour and bytes these 24 hours, counted across instances.
public struct UploadAdmission: Sendable {
    private let library: any MediaLibrary
    private let counters: any RateLimitCounters
    private let limits: UploadLimits
    private let now: @Sendable () -> Date

    public init(library: any MediaLibrary, counters: any RateLimitCounters, limits: UploadLimits, now: @escaping @Sendable () -> Date) {
        self.library = library
        self.counters = counters
        self.limits = limits
        self.now = now
    }

    /// Lets an upload of up to `bytes` by `user` in, or throws the ``MediaError`` that refuses it.
    public func admit(_ user: PermanentPrincipal, bytes: Int) async throws {
        try await admitRoom(bytes: bytes)
        let account = user.userID.description
        let now = now()
        if let wait = try await counters.take("up-count:" + account, amount: 1, limit: limits.perHour, window: 3600, now: now) {
            throw MediaError.rateLimited(retryAfterSeconds: wait)
        }
        // In KiB: a day's bytes fit the counter's 32 bits up to 2 TiB.
        let kibibytes = (bytes + 1023) / 1024
        if let wait = try await counters.take("up-bytes:" + account, amount: kibibytes, limit: limits.bytesPerDay / 1024, window: 86_400, now: now) {
            try? await counters.giveBack("up-count:" + account, amount: 1, now: now)
            throw MediaError.quotaExceeded(retryAfterSeconds: wait)
        }
    }

    /// Lets `bytes` in if the store has room for them (a service's upload: its key's rate
    /// is counted elsewhere), or throws ``MediaError/storageFull``.
    public func admitRoom(bytes: Int) async throws {
        let room = try await library.capacity()
        guard room.freeBytes - bytes >= limits.minimumFreeBytes, room.unreferencedBytes + bytes <= limits.maximumUnreferencedBytes else {
            throw MediaError.storageFull
        }
    }
}
