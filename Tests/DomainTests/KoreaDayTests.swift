import Codecs
import Domain
import Foundation
import Testing

/// Korea days computed with ``CivilDate`` agree with Foundation's Gregorian calendar.
@Suite struct KoreaDayTests {
    private let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 9 * 3600)!
        return calendar
    }()

    @Test func daysMatchTheGregorianCalendarInKorea() throws {
        var generator = SystemRandomNumberGenerator()
        let instants = [0, -1, 951_782_400, 1_709_164_800, 4_102_444_799] + (0..<3000).map { _ in
            Double.random(in: -2_000_000_000...4_000_000_000, using: &generator)
        }
        for seconds in instants {
            let instant = Date(timeIntervalSince1970: seconds)
            let day = KoreaDay(containing: instant)
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            let text = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            #expect(day.description == text, "\(seconds)")
            #expect(day.start == calendar.startOfDay(for: instant), "\(seconds)")
            #expect(KoreaDay(text) == day, "\(text)")
        }
    }

    @Test func onlyRealDatesParse() {
        for text in ["2028-02-29", "2000-02-29", "2026-12-31", "2026-01-01"] {
            #expect(KoreaDay(text)?.description == text, "\(text)")
        }
        for text in ["2026-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00", "2026-1-01", "2026/01/01",
                     "２０２６-01-01", "+026-01-01", "2026-01-01 ", ""] {
            #expect(KoreaDay(text) == nil, "\(text)")
        }
    }
}
