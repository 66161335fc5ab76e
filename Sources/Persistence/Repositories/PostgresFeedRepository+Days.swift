import Domain
import Foundation
import PostgresDriver

/// The days' orders: built in steps (migration 0026), within a budget for a request.
extension PostgresFeedRepository {
    /// Builds the day's order step by step (each its own short transaction) until it is
    /// complete or `budget` is spent; steps of other instances, or of a build a crash cut
    /// short, are continued. At 10 M posts a fresh day took 93 s: a request spends at most
    /// its budget on it (one request per instance at a time), the maintenance job the rest.
    public func prepare(day: KoreaDay, within budget: Duration?) async throws -> Bool {
        if shared.preparedDays.withLock({ $0[day] != nil }) { return true }
        let deadline = budget.map { ContinuousClock.now + $0 }
        if deadline != nil {
            guard shared.requestBuilding.withLock({ building in defer { building = true }; return !building }) else { return false }
        }
        defer { if deadline != nil { shared.requestBuilding.withLock { $0 = false } } }
        var complete = false
        while !complete {
            let step: SQL = "SELECT feed_day_build_step(\(day.description)::date, \(day.start), \(self.buildBatch))"
            guard let deadline else {
                complete = try await pool.statement { connection in try connection.query(step)[0].decode(0) }
                continue
            }
            // A request's step stops at its deadline, waiting for the feed lock included.
            let left = Int((deadline - ContinuousClock.now) / .milliseconds(1))
            guard left > 0 else { return false }
            do {
                complete = try await pool.statement { connection in
                    try connection.transaction { connection in
                        try connection.query("SELECT set_config('statement_timeout', \(String(left)), true)")
                        return try connection.query(step)[0].decode(0)
                    }
                }
            } catch let error as PostgresError where error.code == .queryTimeout {
                return false
            }
        }
        // After the commit: a position taken inside the transaction precedes its commit record.
        let position = try await pool.statement { try $0.walInsertPosition() }
        shared.preparedDays.withLock { $0[day] = position }
        return true
    }

    /// Deletes the older days' ranks in steps, then the days under the feed lock.
    public func discardDays(before day: KoreaDay) async throws {
        var gone = false
        while !gone {
            gone = try await pool.statement { connection in
                try connection.query("SELECT feed_days_discard_step(\(day.description)::date, \(self.buildBatch * 5))")[0].decode(0)
            }
        }
        shared.preparedDays.withLock { $0 = $0.filter { $0.key >= day } }
    }
}
