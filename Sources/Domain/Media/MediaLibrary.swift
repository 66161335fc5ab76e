import Foundation

/// Where uploads are kept: a port, so a deployment can put an object store (S3 and the
/// like) behind it. The default keeps content-addressed files in a directory.
public protocol MediaLibrary: Sendable {
    /// A new, empty, private file to write an upload into before ``adopt(_:by:)``; the
    /// caller removes it if it never adopts it.
    func incomingFile() async throws -> String
    /// Takes the written file at `path`: checks its first bytes are an accepted image
    /// (``MediaError/unsupportedType`` otherwise), names it by content, moves it into the
    /// store atomically (one copy per content) and records it as uploaded by `user`.
    func adopt(_ path: String, by user: UserID) async throws -> StoredMedia
    /// The stored file `name`, or `nil`.
    func file(named name: String) async throws -> MediaFile?
    /// Removes uploads made before `cutoff` that no post and no profile refers to, one
    /// instance at a time; their names.
    func prune(before cutoff: Date) async throws -> [String]
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
