import Foundation

/// The media store's copy in the backup repository. Files are content-addressed and never
/// change, so the copy only grows: each pass links (same disk) or copies the files the
/// store has and the copy lacks. A file the store no longer has (an upload pruned after a
/// day unreferenced) stays in the copy for `retention`, so a restore to any moment of the
/// backups' window finds every image the database of that moment refers to; then it goes.
///
/// Blocking file work: call it from a thread you own.
public struct MediaMirror: Sendable {
    public let store: String
    public let mirror: String
    public let retention: TimeInterval

    public init(store: String, mirror: String, retention: TimeInterval) {
        self.store = store
        self.mirror = mirror
        self.retention = retention
    }

    /// What a pass did.
    public struct Pass: Sendable, Equatable {
        public var copied = 0
        public var expired = 0
    }

    /// Content-addressed file names: `<64 hex>.<ext>`; anything else (the store's
    /// `incoming/`, a half-written copy) is not part of the store.
    static func isMediaName(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        return parts.count == 2 && parts[0].utf8.count == 64 && parts[0].utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
            && (1...5).contains(parts[1].utf8.count)
    }

    /// One pass at `now`.
    @discardableResult
    public func sync(now: Date = Date()) throws -> Pass {
        let manager = FileManager.default
        let gone = mirror + "/.gone"
        try manager.createDirectory(atPath: gone, withIntermediateDirectories: true)
        let live = Set(((try? manager.contentsOfDirectory(atPath: store)) ?? []).filter(Self.isMediaName))
        let kept = Set(try manager.contentsOfDirectory(atPath: mirror).filter(Self.isMediaName))
        var pass = Pass()
        for name in live.subtracting(kept) {
            try copy(store + "/" + name, to: mirror + "/" + name)
            pass.copied += 1
        }
        let marks = Set((try? manager.contentsOfDirectory(atPath: gone)) ?? [])
        for name in marks.intersection(live) { unlink(gone + "/" + name) }
        for name in kept.subtracting(live) {
            let mark = gone + "/" + name
            guard marks.contains(name) else {
                _ = manager.createFile(atPath: mark, contents: nil)
                continue
            }
            let marked = (try? manager.attributesOfItem(atPath: mark)[.modificationDate] as? Date) ?? now
            if now.timeIntervalSince(marked) > retention {
                unlink(mirror + "/" + name)
                unlink(mark)
                pass.expired += 1
            }
        }
        return pass
    }

    /// Every file of the mirror and of `store` (when it still exists) into `target`: the
    /// media of a restored directory (a superset of what its database refers to; what
    /// nothing refers to is pruned a day later, as any unreferenced upload).
    public func restore(into target: String) throws -> Int {
        let manager = FileManager.default
        try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
        var restored = Set<String>()
        for source in [mirror, store] {
            for name in ((try? manager.contentsOfDirectory(atPath: source)) ?? []).filter(Self.isMediaName) where !restored.contains(name) {
                try copy(source + "/" + name, to: target + "/" + name)
                restored.insert(name)
            }
        }
        return restored.count
    }

    /// The mirror's files the store lacks, copied back into it (after a lost media volume;
    /// content-addressed, so a file there is never replaced); how many.
    public func restoreMissing() throws -> Int {
        let manager = FileManager.default
        try manager.createDirectory(atPath: store, withIntermediateDirectories: true)
        let present = Set(((try? manager.contentsOfDirectory(atPath: store)) ?? []))
        var restored = 0
        for name in ((try? manager.contentsOfDirectory(atPath: mirror)) ?? []).filter(Self.isMediaName) where !present.contains(name) {
            try copy(mirror + "/" + name, to: store + "/" + name)
            restored += 1
        }
        return restored
    }

    /// A hard link when `source` and `target` share a file system (no bytes copied: the
    /// files never change), else a copy written beside and renamed into place.
    private func copy(_ source: String, to target: String) throws {
        if link(source, target) == 0 || errno == EEXIST { return }
        let temporary = target + ".partial"
        unlink(temporary)
        try FileManager.default.copyItem(atPath: source, toPath: temporary)
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target])
        }
    }
}
