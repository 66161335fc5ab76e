import Cryptography
import Foundation
import Persistence
import Testing

/// Base64url without padding, against Foundation's base64 as the reference.
@Suite struct Base64URLTests {
    @Test func roundTripsEveryLengthAndMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == reference, "length \(length)")
            #expect(Base64URL.decode(encoded) == Data(bytes), "length \(length)")
        }
        #expect(Base64URL.encode(Data([0xFB, 0xFF, 0xBF])) == "-_-_")
    }

    @Test func refusesWhatIsNotBase64URL() {
        for text in ["ab+c", "ab/c", "abc=", "YQ==", "abcde", "ab c", "한글", "ab\u{0}c", "YR"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        #expect(Base64URL.decode("") == Data())
        #expect(Base64URL.decode("YQ") == Data("a".utf8))
    }
}
