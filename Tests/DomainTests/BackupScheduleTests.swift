import Domain
import Foundation
import Testing

/// When backups are due and which moments a restore can reach, without a repository.
@Suite struct BackupScheduleTests {
    private let now = Date(timeIntervalSince1970: 1_796_400_000)
    private let day: TimeInterval = 86_400

    private func backup(_ kind: BackupRecord.Kind, endedDaysAgo days: Double, timeline: Int = 1) -> BackupRecord {
        let finished = now.addingTimeInterval(-days * day)
        return BackupRecord(label: "b\(days)", kind: kind, started: finished.addingTimeInterval(-60), finished: finished, databaseBytes: 1, repositoryBytes: 1,
                            timeline: timeline)
    }

    @Test func aFullBackupFirstThenDifferentialsDailyAndAFullWeekly() {
        let schedule = BackupSchedule()
        #expect(schedule.due(after: [], now: now) == .full)
        #expect(schedule.due(after: [backup(.full, endedDaysAgo: 0.5)], now: now) == nil)
        #expect(schedule.due(after: [backup(.full, endedDaysAgo: 1.5)], now: now) == .differential)
        #expect(schedule.due(after: [backup(.full, endedDaysAgo: 3), backup(.differential, endedDaysAgo: 0.2)], now: now) == nil)
        #expect(schedule.due(after: [backup(.full, endedDaysAgo: 7.1), backup(.differential, endedDaysAgo: 0.2)], now: now) == .full)
        // Differentials alone never make a full one unnecessary.
        #expect(schedule.due(after: [backup(.differential, endedDaysAgo: 0.1)], now: now) == .full)
    }

    @Test func aClusterOnANewTimelineStartsWithAFullBackupOfItsOwn() {
        let schedule = BackupSchedule()
        #expect(schedule.due(after: [backup(.full, endedDaysAgo: 0.5)], timeline: 2, now: now) == .full)
        #expect(schedule.due(after: [backup(.full, endedDaysAgo: 0.5), backup(.full, endedDaysAgo: 0.1, timeline: 2)], timeline: 2, now: now) == nil)
    }

    @Test func aMomentIsReachableFromTheFirstBackupsEndToNow() {
        let backups = [backup(.full, endedDaysAgo: 2), backup(.differential, endedDaysAgo: 1)]
        #expect(throws: RestorePoint.Unreachable.noBackups) { try RestorePoint.latest.check(against: [], now: now) }
        #expect(throws: RestorePoint.Unreachable.beforeFirstBackup(earliest: now.addingTimeInterval(-2 * day))) {
            try RestorePoint.time(now.addingTimeInterval(-3 * day)).check(against: backups, now: now)
        }
        #expect(throws: RestorePoint.Unreachable.inTheFuture) { try RestorePoint.time(now.addingTimeInterval(60)).check(against: backups, now: now) }
        #expect(throws: Never.self) { try RestorePoint.time(now.addingTimeInterval(-1.5 * day)).check(against: backups, now: now) }
        #expect(throws: Never.self) { try RestorePoint.beforeTransaction(1234).check(against: backups, now: now) }
    }

    @Test func aRestoreStartsFromTheLatestBackupBeforeTheMomentOrTheOneNamed() throws {
        let backups = [backup(.full, endedDaysAgo: 2), backup(.differential, endedDaysAgo: 1), backup(.differential, endedDaysAgo: 0.1)]
        #expect(try RestorePoint.time(now.addingTimeInterval(-0.5 * day)).backup(from: backups, now: now) == backups[1])
        #expect(try RestorePoint.latest.backup(from: backups, now: now) == backups[2])
        #expect(try RestorePoint.time(now.addingTimeInterval(-0.5 * day)).backup(from: backups, label: "b2.0", now: now) == backups[0])
        #expect(throws: RestorePoint.Unreachable.noSuchBackup("nope")) {
            try RestorePoint.latest.backup(from: backups, label: "nope", now: now)
        }
        #expect(throws: RestorePoint.Unreachable.backupEndsAfterTheMoment("b0.1")) {
            try RestorePoint.time(now.addingTimeInterval(-0.5 * day)).backup(from: backups, label: "b0.1", now: now)
        }
    }

    @Test func momentsAreReadWithTheirZoneAndWrittenInKoreasTime() {
        let moment = Date(timeIntervalSince1970: 1_796_432_400)  // 2026-12-05 01:00:00Z
        for text in ["2026-12-05 10:00:00+09", "2026-12-05 10:00:00+09:00", "2026-12-05T10:00:00+09:00", "2026-12-05 01:00:00Z",
                     "2026-12-05T01:00:00.000Z", "2026-12-04 20:00:00-05"] {
            #expect(RestorePoint.moment(text) == moment, "\(text)")
        }
        #expect(RestorePoint.moment("2026-12-05 10:00:00.25+09")?.timeIntervalSince(moment) == 0.25)
        for text in ["2026-12-05 10:00:00", "yesterday", "2026-13-05 10:00:00+09", ""] {
            #expect(RestorePoint.moment(text) == nil, "\(text)")
        }
        #expect(RestorePoint.text(moment) == "2026-12-05 10:00:00+09")
    }
}
