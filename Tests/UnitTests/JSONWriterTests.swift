@testable import App
import Codecs
import Domain
import Foundation
import HTTPServer
import Synchronization
import Testing

/// The hand-written JSON of response bodies parses, with `JSONSerialization`, back to
/// exactly the values written.
@Suite struct JSONWriterTests {
    private struct Sample: JSONWritable {
        let text: String
        let number: Int
        let flag: Bool
        let missing: String?
        let list: [Int]
        let nested: [Sample]

        func write(to json: inout JSONWriter) {
            json.object { json in
                json.field("text", text)
                json.field("number", number)
                json.field("flag", flag)
                json.field("missing", missing)
                json.field("list", list)
                json.field("nested", nested)
            }
        }

        var expected: NSDictionary {
            ["text": text, "number": number, "flag": flag, "missing": NSNull(), "list": list, "nested": nested.map(\.expected)]
        }
    }

    private func parse(_ value: some JSONWritable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONWriter.encode(value), options: [.fragmentsAllowed])
    }

    @Test func stringsWithKoreanTextEscapesAndEveryControlCharacterRoundTrip() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let samples = ["", "공동구매 크림 50% 할인", #"quote " and backslash \ and slash /"#, controls, "\u{7F}\u{2028}\u{2029}\u{FEFF}",
                       "emoji 🛍️👩‍👩‍👧", "tab\tnew\nline\rreturn", "\\u0041 is not unescaped", "mixed 한글\"\\\n끝"]
        for text in samples {
            #expect(try parse(text) as? String == text, "\(text.debugDescription)")
        }
    }

    @Test func randomStringsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let scalars = (0..<Int.random(in: 0...40, using: &generator)).compactMap { _ -> Unicode.Scalar? in
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: Unicode.Scalar(UInt32.random(in: 0..<0x80, using: &generator))
                case 1: Unicode.Scalar(UInt32.random(in: 0xAC00...0xD7A3, using: &generator))
                case 2: Unicode.Scalar(UInt32.random(in: 0x1F300...0x1FAFF, using: &generator))
                default: Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &generator))
                }
            }
            let text = String(String.UnicodeScalarView(scalars))
            #expect(try parse(text) as? String == text, "\(text.debugDescription)")
        }
    }

    @Test func numbersBooleansNullsAndNestingRoundTrip() throws {
        for number in [0, 1, -1, 9, 10, 99, 100, 1_000_000_007, Int.max, Int.min, Int.min + 1] {
            #expect(try parse(number) as? NSNumber == NSNumber(value: number), "\(number)")
        }
        let leaf = Sample(text: "잎", number: -3, flag: false, missing: nil, list: [], nested: [])
        let sample = Sample(text: "뿌리 \"root\"", number: 42, flag: true, missing: nil, list: [1, -2, 3], nested: [leaf, leaf])
        #expect(try parse(sample) as? NSDictionary == sample.expected)
        #expect(try parse([Int]()) as? NSArray == NSArray())
        #expect(try parse(["b": "x", "a\"\n키": "y"]) as? NSDictionary == ["b": "x", "a\"\n키": "y"] as NSDictionary)
        #expect(String(decoding: JSONWriter.encode([sample, leaf]), as: UTF8.self).hasPrefix(#"[{"text":"뿌리 \"root\"","number":42,"#))
    }

    @Test func aPostPageIsTheContractShape() throws {
        let start = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01T09:00:00+09:00
        let post = Post(
            id: PostID(rawValue: 7), productName: "수분 크림 \"특가\"\n2+1", price: nil,
            category: Category(id: CategoryID(rawValue: "beauty"), name: "뷰티"), displayURL: "https://cdn.example/a.jpg",
            groupBuyingURL: nil, groupBuyingStart: start, groupBuyingEnd: start.addingTimeInterval(86_400 * 3 + 0.75),
            likesCount: 12, postedAt: start.addingTimeInterval(-3600.5), submittedBy: nil,
            influencer: InfluencerSummary(id: InfluencerID(rawValue: 3), username: "beauty_kim", fullName: "김뷰티",
                                          profilePicURL: nil, externalURL: "https://x.example/?a=1&b=\\"),
            isLiked: true)
        let page = PostPageResponse(data: [PostResponse(post: post, now: start.addingTimeInterval(60), rank: 1)],
                                    total: 1, page: 1, limit: 20, hasNext: false)
        let expected: NSDictionary = [
            "data": [[
                "id": 7, "product_name": "수분 크림 \"특가\"\n2+1", "price": NSNull(), "category": "beauty", "category_name": "뷰티",
                "display_url": "https://cdn.example/a.jpg", "group_buying_url": NSNull(),
                "group_buying_start": "2025-12-01T09:00:00.000+09:00", "group_buying_end": "2025-12-04T09:00:00.750+09:00",
                "status": "ongoing", "likes_count": 12, "posted_at": "2025-12-01T07:59:59.500+09:00",
                "influencer": ["id": 3, "username": "beauty_kim", "full_name": "김뷰티", "profile_pic_url": NSNull(),
                               "external_url": "https://x.example/?a=1&b=\\"],
                "is_liked": true, "rank": 1, "post_url": NSNull(), "hashtags": [String](), "post_type": NSNull(),
            ]],
            "total": 1, "total_exact": true, "page": 1, "limit": 20, "has_next": false,
        ]
        #expect(try parse(page) as? NSDictionary == expected)
    }

    /// Seconds as Foundation writes them (its own fraction digits drift with the double:
    /// 1006360394.790 prints .789), then the milliseconds of the instant itself.
    @Test func wireDatesAreFoundationsISO8601SecondsWithTheInstantsMilliseconds() throws {
        let korea = Date.ISO8601FormatStyle(timeSeparator: .colon, timeZoneSeparator: .colon, timeZone: TimeZone(secondsFromGMT: 9 * 3600)!)
        let utc = Date.ISO8601FormatStyle()
        var generator = SystemRandomNumberGenerator()
        let milliseconds = [0, -1, 1001, 951_782_400_000, 4_102_444_799_999, -2_208_988_800_000] + (0..<2000).map { _ in
            Int.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
        }
        for value in milliseconds {
            let seconds = Date(timeIntervalSince1970: Double(CivilDate.floorDivide(value, 1000)))
            let digits = String(1000 + value - CivilDate.floorDivide(value, 1000) * 1000).dropFirst()
            let date = Date(timeIntervalSince1970: Double(value) / 1000)
            #expect(try parse(WireDate.JSON(date)) as? String == seconds.formatted(korea).replacingOccurrences(of: "+09:00", with: ".\(digits)+09:00"),
                    "\(value)")
            #expect(try parse(WireDate.JSON(date, koreaOffset: false)) as? String == seconds.formatted(utc).dropLast() + ".\(digits)Z", "\(value)")
            let later = Date(timeIntervalSince1970: Double(value * 1000 + 999) / 1_000_000)  // .xyz999: truncated, not rounded up
            #expect(try parse(WireDate.JSON(later)) as? String == (try parse(WireDate.JSON(date)) as? String), "\(value) + 999 µs")
        }
        #expect(try parse(WireDate.JSON(Date(timeIntervalSince1970: -0.001), koreaOffset: false)) as? String == "1969-12-31T23:59:59.999Z")
    }
}

/// Log lines are one JSON object each, with a UTC millisecond timestamp.
@Suite struct LoggerLineTests {
    @Test func linesAreJSONWithTheirFieldsAndATimestamp() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        logger.log(.debug, "hidden")
        logger.info("요청 \"done\"\n", ["path": "/v1/posts?q=크림", "status": 200, "duration_ms": .double(1.25), "nan": .double(.nan)])
        let all = lines.withLock { $0 }
        #expect(all.count == 1)
        let line = try #require(all.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["message"] as? String == "요청 \"done\"\n")
        #expect(object["path"] as? String == "/v1/posts?q=크림")
        #expect(object["status"] as? Int == 200)
        #expect(object["duration_ms"] as? Double == 1.25)
        #expect(object["nan"] is NSNull)
        let time = try #require(object["time"] as? String)
        #expect(time.count == 24 && time.hasSuffix("Z"))
        let parsed = try #require(try? Date(time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
        #expect(abs(parsed.timeIntervalSinceNow) < 60)
    }
}
