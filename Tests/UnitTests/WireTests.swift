@testable import App
import Codecs
import Foundation
import HTTPServer
import Testing

/// What the wire carries, read and written without I/O: RFC 3339 times, civil dates, the
/// client's address, the read-after cookie.
@Suite struct WireTests {
    @Test(arguments: [
        ("2026-12-04T10:00:00+09:00", 1_796_346_000.0), ("2026-12-04t01:00:00z", 1_796_346_000.0),
        ("2026-12-04T01:00:00.250Z", 1_796_346_000.25), ("2016-12-31T23:59:60Z", 1_483_228_799.0),
        ("1900-01-01T00:00:00+23:59", -2_208_988_800.0 - 86_340),
    ])
    func rfc3339TimesAreReadWithTheirOffsets(text: String, seconds: Double) throws {
        let date = try WireDate.parse(text, field: "at")
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.001, "\(text)")
    }

    @Test(arguments: ["2026-12-04", "2026-12-04T10:00:00", "2026-13-04T10:00:00Z", "2026-12-04T10:00:00+24:00", "1899-12-31T23:59:59Z", "x"])
    func anythingElseIsRefusedNamingTheField(text: String) {
        #expect(throws: APIError.self) { try WireDate.parse(text, field: "at") }
        do { _ = try WireDate.parse(text, field: "group_buying_end") } catch let error as APIError { #expect(error.field == "group_buying_end") } catch {}
    }

    @Test func civilDatesRoundTripThroughDayNumbers() {
        for (year, month, day) in [(1970, 1, 1), (2000, 2, 29), (2026, 12, 5), (1900, 3, 1), (9999, 12, 31)] {
            let days = CivilDate.days(year: year, month: month, day: day)
            let back = CivilDate.date(fromDays: days)
            #expect(back.year == year && back.month == month && back.day == day)
        }
        #expect(CivilDate.days(year: 1970, month: 1, day: 1) == 0)
    }

    @Test func onlyRealCalendarDaysAreValid() {
        #expect(CivilDate.isValid(year: 2024, month: 2, day: 29))
        #expect(!CivilDate.isValid(year: 2026, month: 2, day: 29))
        #expect(!CivilDate.isValid(year: 1900, month: 2, day: 29), "1900 was not a leap year")
        #expect(!CivilDate.isValid(year: 2026, month: 4, day: 31))
    }

    @Test func anISODateIsWrittenPadded() {
        var bytes: [UInt8] = []
        CivilDate.appendISODate(days: CivilDate.days(year: 812, month: 3, day: 7), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "0812-03-07")
    }

    @Test func addressesHaveOneSpelling() {
        #expect(ClientAddress.canonical("::ffff:203.0.113.9") == "203.0.113.9")
        #expect(ClientAddress.canonical("2001:DB8:0:0:0:0:0:1") == "2001:db8::1")
        #expect(ClientAddress.canonical("not an address") == "not an address")
    }

    @Test func theClientIsTheLastHopNotATrustedProxy() {
        let clients = ClientAddress(trustedProxies: ["10.0.0.1", "10.0.0.2"])
        let request = HTTPRequest(method: "GET", path: "/", headers: HTTPHeaders([("X-Forwarded-For", "1.1.1.1, 198.51.100.4, 10.0.0.2")]),
                                  remoteAddress: "10.0.0.1")
        #expect(clients.address(of: request) == "198.51.100.4", "the hops before the last untrusted one are the client's to forge")
    }

    @Test func theReadAfterCookieIsFoundAmongOthersAndBounded() {
        #expect(ReadYourWrites.cookieValue("a=1; m09_read_after=16B374D848; b=2") == "16B374D848")
        #expect(ReadYourWrites.cookieValue("m09_read_afterx=1") == nil)
        #expect(ReadYourWrites.cookieValue(String(repeating: "a", count: 9_000)) == nil)
    }

    @Test func onlyRequestsThatMayWriteAreRemembered() {
        #expect(!ReadYourWrites.mayWrite(HTTPRequest(method: "GET", path: "/")))
        #expect(!ReadYourWrites.mayWrite(HTTPRequest(method: "OPTIONS", path: "/")))
        #expect(ReadYourWrites.mayWrite(HTTPRequest(method: "PATCH", path: "/")))
    }
}
