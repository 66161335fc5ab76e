import Foundation

@testable import PostgresDriver
import Testing

@Suite struct PostgresTimestampTests {
    @Test(arguments: [
        ("2026-11-29 13:58:26.123456+00", 1_795_960_706.123456),
        ("2026-11-29T13:58:26Z", 1_795_960_706.0),
        ("2026-11-29 22:58:26+09", 1_795_960_706.0),
        ("2026-11-29 13:28:26-00:30", 1_795_960_706.0),
        ("1969-12-31 23:59:59.5+00", -0.5),
        ("2000-02-29 00:00:00+00", 951_782_400.0),
    ])
    func parsesServerOutput(text: String, seconds: Double) throws {
        let date = try #require(PostgresTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(arguments: ["", "2026-11-29", "2026-13-01 00:00:00+00", "2026-11-29 24:00:00+00", "2026-11-29 10:00:00+0x", "infinity"])
    func rejectsMalformedText(text: String) {
        #expect(PostgresTimestamp.parse(text) == nil)
    }

    @Test func formatRoundTripsToTheMicrosecond() throws {
        for seconds in [0.0, 1_795_960_706.123456, -86_400.25, 4_102_444_800.999999] {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = try #require(PostgresTimestamp.parse(PostgresTimestamp.format(date)))
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.000_001)
        }
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: 1_795_960_706.5)) == "2026-11-29T13:58:26.500000Z")
    }
}
