import Foundation
import HTTPServer
import Testing

/// The tag's hash sees every byte: through the four 32-byte lanes, the 8-byte steps after
/// them and the last few bytes, a change of any one byte gives another hash.
@Suite struct EntityTagHashTests {
    @Test func everyByteOfTheBodyChangesTheHash() {
        for length in [0, 1, 7, 8, 31, 32, 33, 71, 100] {
            let body = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) })
            let hash = EntityTag.hash(body)
            #expect(EntityTag.hash(Data(body)) == hash)
            for index in 0..<length {
                var changed = body
                changed[index] ^= 0x01
                #expect(EntityTag.hash(changed) != hash, "byte \(index) of \(length)")
            }
            #expect(EntityTag.hash(body + [0]) != hash, "a trailing zero of \(length)")
        }
        // Lanes swapped (the same 8-byte words in another order) is another body.
        let words = Data((0..<32).map { UInt8($0 / 8 + 1) })
        let swapped = Data(words[8..<16] + words[0..<8] + words[16..<32])
        #expect(EntityTag.hash(words) != EntityTag.hash(swapped))
    }
}
