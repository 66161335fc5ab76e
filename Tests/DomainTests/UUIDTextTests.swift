import Codecs
import Domain
import Foundation
import Testing

/// `UUID.lowercasedText` and `UUID(text:)` agree with Foundation's `uuidString` and
/// `UUID(uuidString:)`, which they replace on the request path.
@Suite struct UUIDTextTests {
    @Test func roundTripsAndMatchesFoundation() {
        let edges = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for id in edges + (0..<200).map({ _ in UUID() }) {
            let text = id.lowercasedText
            #expect(text == id.uuidString.lowercased())
            #expect(UUID(text: text) == id)
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: text[...]) == id)
        }
    }

    @Test func refusesWhatFoundationRefuses() {
        let good = "0b7f9c7e-6f7a-4c1e-9a39-3f1d2f8e5b10"
        var bad = ["", "0b7f9c7e6f7a4c1e9a393f1d2f8e5b10", " " + good, good + " ", good + "0", String(good.dropLast()),
                   "0b7f9c7e-6f7a-4c1e-9a39-3f1d2f8e5b1g", "0b7f9c7e_6f7a-4c1e-9a39-3f1d2f8e5b10", "0b7f9c7-e6f7a-4c1e-9a39-3f1d2f8e5b10",
                   "{0b7f9c7e-6f7a-4c1e-9a39-3f1d2f8e5b10}", "0b7f9c7e-6f7a-4c1e-9a39-3f1d2f8e5b1é"]
        bad.append(String(good.map { $0 == "-" ? "+" : $0 }))
        for text in bad {
            #expect(UUID(text: text) == nil, "\(text)")
            #expect(UUID(uuidString: text) == nil, "Foundation takes \(text)")
        }
        #expect(UUID(text: good) == UUID(uuidString: good))
    }
}
