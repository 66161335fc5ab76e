import Foundation

/// One backup in the repository, as the backup tool lists it.
public struct BackupRecord: Sendable, Equatable {
    /// Full copies everything; differential what changed since the last full; incremental
    /// what changed since the last backup of any kind.
    public enum Kind: String, Sendable, CaseIterable {
        case full
        case differential = "diff"
        case incremental = "incr"
    }

    /// The tool's name for it (`20261205-010802F`).
    public let label: String
    public let kind: Kind
    public let started: Date
    /// When it ended: the earliest moment a restore from it can reach.
    public let finished: Date
    /// The database's size it copied (before compression).
    public let databaseBytes: Int
    /// What it added to the repository (compressed).
    public let repositoryBytes: Int
    /// The cluster's timeline when it was taken (a restore that was switched to starts a
    /// new one).
    public let timeline: Int

    public init(label: String, kind: Kind, started: Date, finished: Date, databaseBytes: Int, repositoryBytes: Int, timeline: Int = 1) {
        self.label = label
        self.kind = kind
        self.started = started
        self.finished = finished
        self.databaseBytes = databaseBytes
        self.repositoryBytes = repositoryBytes
        self.timeline = timeline
    }
}

/// When a backup is due, and of which kind: a full one every `fullEvery`, a differential
/// one every `differentialEvery` in between. Continuous WAL archiving covers the time
/// between backups; a backup bounds how much WAL a restore replays.
public struct BackupSchedule: Sendable, Equatable {
    public var fullEvery: TimeInterval
    public var differentialEvery: TimeInterval

    public init(fullEvery: TimeInterval = 7 * 86_400, differentialEvery: TimeInterval = 86_400) {
        self.fullEvery = fullEvery
        self.differentialEvery = differentialEvery
    }

    /// The kind of backup to take at `now` on the cluster's `timeline`, or `nil` while the
    /// last ones are recent enough. A cluster on a new timeline (a restore switched to)
    /// starts with a full backup of its own.
    public func due(after backups: [BackupRecord], timeline: Int = 1, now: Date) -> BackupRecord.Kind? {
        guard let lastFull = backups.filter({ $0.kind == .full && $0.timeline == timeline }).map(\.finished).max() else { return .full }
        if now.timeIntervalSince(lastFull) >= fullEvery { return .full }
        let last = backups.map(\.finished).max() ?? lastFull
        return now.timeIntervalSince(last) >= differentialEvery ? .differential : nil
    }
}

/// Where a restore goes to.
public enum RestorePoint: Sendable, Equatable {
    /// The moment `Date`: every transaction committed before it, none after.
    case time(Date)
    /// The end of the archive: everything archived.
    case latest
    /// Just before the transaction with this id committed.
    case beforeTransaction(UInt64)

    /// Why no restore reaches the point.
    public enum Unreachable: Error, Sendable, Equatable, CustomStringConvertible {
        case noBackups
        case beforeFirstBackup(earliest: Date)
        case inTheFuture
        case noSuchBackup(String)
        case backupEndsAfterTheMoment(String)

        public var description: String {
            switch self {
            case .noBackups: "the repository holds no backup yet: nothing can be restored"
            case .noSuchBackup(let label): "no backup \(label) in the repository (market09 backup list names them)"
            case .backupEndsAfterTheMoment(let label): "backup \(label) ended after that moment: a restore starts from a backup that ended before it"
            case .beforeFirstBackup(let earliest):
                "no backup covers that time: the earliest moment a restore can reach is \(RestorePoint.text(earliest)), when the first backup ended"
            case .inTheFuture: "that time has not come yet"
            }
        }
    }

    /// Whether a restore from `backups` can reach this point at `now`: a moment needs a
    /// backup that ended before it (the archive then carries it forward).
    public func check(against backups: [BackupRecord], now: Date) throws {
        guard let earliest = backups.map(\.finished).min() else { throw Unreachable.noBackups }
        guard case .time(let moment) = self else { return }
        if moment > now { throw Unreachable.inTheFuture }
        if moment < earliest { throw Unreachable.beforeFirstBackup(earliest: earliest) }
    }

    /// The backup a restore to this point starts from: the one labelled `label` when given
    /// (one that is known good while a later one is in doubt; a drill that must replay
    /// through a failover), else the latest that ended before the moment. Backups oldest first.
    public func backup(from backups: [BackupRecord], label: String? = nil, now: Date) throws -> BackupRecord {
        try check(against: backups, now: now)
        let usable = backups.filter { backup in
            if case .time(let moment) = self { backup.finished <= moment } else { true }
        }
        guard let label else { return usable.last! }
        guard let chosen = backups.first(where: { $0.label == label }) else { throw Unreachable.noSuchBackup(label) }
        guard usable.contains(chosen) else { throw Unreachable.backupEndsAfterTheMoment(label) }
        return chosen
    }

    /// `2026-12-05 10:00:00+09`: how operators write a moment here (Korea's time, as the app).
    public static func text(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ssxxx"
        return formatter.string(from: date).replacingOccurrences(of: ":00", with: "", options: [.anchored, .backwards])
    }

    /// A moment as operators write it: `YYYY-MM-DD HH:MM:SS` with a zone (`+09`, `+09:00`,
    /// `Z`), optionally with fractions of a second or a `T` between date and time.
    public static func moment(_ text: String) -> Date? {
        var value = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "T", with: " ")
        if value.hasSuffix("Z") { value = String(value.dropLast()) + "+00:00" }
        // `+09` → `+09:00`
        if let sign = value.lastIndex(where: { $0 == "+" || $0 == "-" }), value.distance(from: sign, to: value.endIndex) == 3 {
            value += ":00"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd HH:mm:ssxxx", "yyyy-MM-dd HH:mm:ss.SSSSSSxxx", "yyyy-MM-dd HH:mm:ss.SSSxxx", "yyyy-MM-dd HH:mm:ss.SSxxx",
                       "yyyy-MM-dd HH:mm:ss.Sxxx"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date }
        }
        return nil
    }
}
