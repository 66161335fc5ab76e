import Foundation

/// A position in PostgreSQL's write-ahead log (`pg_lsn`, written `16/B374D848`): the
/// primary's position after a write, and how far a replica has replayed. Positions only
/// grow, so "has this replica replayed that write" is a comparison.
public struct WALPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The 64-bit byte position.
    public let value: UInt64

    public init(value: UInt64) {
        self.value = value
    }

    /// Parses PostgreSQL's `X/Y` form (hexadecimal halves) or the plain hexadecimal that
    /// ``hex`` writes (a cookie's value); `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard (1...16).contains(text.count), let value = UInt64(text, radix: 16) else { return nil }
            self.value = value
        case 2:
            guard (1...8).contains(parts[0].count), (1...8).contains(parts[1].count),
                  let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16) else { return nil }
            self.value = high << 32 | low
        default:
            return nil
        }
    }

    /// Plain hexadecimal, without the slash.
    public var hex: String { String(value, radix: 16, uppercase: true) }

    public var description: String { "\(String(value >> 32, radix: 16, uppercase: true))/\(String(value & 0xFFFF_FFFF, radix: 16, uppercase: true))" }

    public static func < (lhs: WALPosition, rhs: WALPosition) -> Bool { lhs.value < rhs.value }
}

extension PostgresConnection {
    /// The server's WAL insert position now: every commit that returned before this call
    /// is at or before it (also with `synchronous_commit = off`, whose commit records may
    /// not be written out yet).
    public func walInsertPosition() throws -> WALPosition {
        let text: String = try query("SELECT pg_current_wal_insert_lsn()::text").single().decode(0)
        guard let position = WALPosition(text) else { throw PostgresError(message: "unexpected WAL position \(text)") }
        return position
    }
}
