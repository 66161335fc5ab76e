import HTTPServer
import Testing

/// Request headers read the way RFC 9110 writes them: lists across lines, weights.
@Suite struct HeaderParsingTests {
    @Test func ifNoneMatchListsAreReadAcrossHeaderLines() {
        let tag = "\"00ff00ff00ff00ff\""
        #expect(EntityTag.matches(["\"a\", \"b\"", "W/\(tag)"], tag))
        #expect(EntityTag.matches(["*"], tag))
        #expect(!EntityTag.matches(["\"00ff00ff00ff00fe\""], tag))
        #expect(!EntityTag.matches([], tag))
    }

    @Test func acceptEncodingIsReadAcrossLinesWithWeights() {
        #expect(ContentCoding.acceptsGzip(["br", "gzip"]))
        #expect(ContentCoding.acceptsGzip(["x-gzip;q=0.5"]))
        #expect(!ContentCoding.acceptsGzip(["gzip; q=0.000"]))
        #expect(!ContentCoding.acceptsGzip(["*", "gzip;q=0"]))
        #expect(!ContentCoding.acceptsGzip([]))
    }
}
