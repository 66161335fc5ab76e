import Domain
import Testing

/// The byte matcher of `HTTPURL` against the contract's pattern itself, on hand-picked and
/// generated inputs (the pattern was the implementation until it showed up in `perf`).
@Suite struct HTTPURLShapeTests {
    private let pattern = /[Hh][Tt][Tt][Pp][Ss]?:\/\/[A-Za-z0-9][A-Za-z0-9.\-]*(:[0-9]{1,5})?(\/([A-Za-z0-9._~!$&()*+,;=:@\/\-]|%[0-9A-Fa-f]{2})*)?(\?([A-Za-z0-9._~!$&()*+,;=:@\/?\-]|%[0-9A-Fa-f]{2})*)?/

    private func expected(_ text: String) -> Bool {
        text.wholeMatch(of: pattern) != nil
    }

    @Test func handPickedInputsMatchAsThePatternDoes() {
        let inputs = [
            "https://example.com", "HTTP://a", "http://a.b-c.d:8080/x/y?z=1&w=%2F", "https://a.com?x", "https://a.com/?x?y",
            "https://a.com:123456/", "https://a.com:/", "https://-a.com", "ftp://a.com", "https:/a.com", "https://", "https://a.com/%zz",
            "https://a.com/%2", "https://a.com/ space", "https://a.com/한글", "https://a.com#frag", "httpss://a.com", "https://a.com:80?q",
            "https://cdn.example/v/t51.2885-15/123_n.jpg?stp=dst-jpg&_nc_ht=x&oh=00_AY", "http://127.0.0.1/media/ab.png", "",
        ]
        for input in inputs {
            #expect(HTTPURLShape.matches(input) == expected(input), "\(input)")
        }
    }

    @Test func generatedInputsMatchAsThePatternDoes() {
        // Deterministic: pieces that matter to the pattern, combined 20,000 ways.
        let pieces = ["http", "https", "HtTp", "://", ":", "/", "?", "%", "%4", "%4f", "a", "Z", "9", ".", "-", "_", "~", "@", "#", " ", "é", "=", "&"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            var text = ["http://", "https://", "HTTPS://", "", "http:/"][Int(state % 5)]
            let count = Int((state >> 8) % 9)
            for step in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += pieces[Int((state >> 33) % UInt64(pieces.count))]
                _ = step
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            #expect(HTTPURLShape.matches(text) == expected(text), "\(text)")
        }
    }
}
