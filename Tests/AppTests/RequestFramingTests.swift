import Foundation
import HTTPServer
import TestSupport
import Testing

/// Requests whose framing two parsers could read differently (RFC 9112 §6.1, §6.3) are
/// answered 400 and their connection closed, so nothing behind them is read as a second
/// request: a front end that frames by the other header would otherwise smuggle it in.
@Suite struct RequestFramingTests {
    @Test(arguments: AmbiguousFraming.probes.indices)
    func ambiguousFramingIsAnswered400AndTheConnectionClosed(_ index: Int) async throws {
        let probe = AmbiguousFraming.probes[index], name = probe.name
        let harness = try EngineHarness()
        let (text, closed) = try await RawHTTPClient.conversation(probe.bytes, port: harness.port)
        await harness.stop()
        let statuses = RawHTTPClient.statuses(in: text)
        #expect(closed, "\(name): the connection stays open")
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == 400 }, "\(name): \(text)")
        if !probe.refusedByEngine {
            #expect(statuses.count == 1 && text.contains(#""error":"ambiguous_framing""#), "\(name): \(text)")
        }
        #expect(harness.logs.entries(message: "request").allSatisfy { $0["path"] as? String != "/hello" }, "\(name)")
    }

    @Test func unambiguousChunkedAndLengthFramedBodiesKeepTheConnection() async throws {
        let harness = try EngineHarness()
        let chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let sized = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-Empty:\r\nX-Tabbed:\tvalue\r\n\r\nhi"
        let last = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let (text, closed) = try await RawHTTPClient.conversation(Data((chunked + sized + last).utf8), port: harness.port)
        await harness.stop()
        #expect(RawHTTPClient.statuses(in: text) == [200, 200, 200] && closed, "\(text.replacingOccurrences(of: "\r\n", with: "|"))")
        #expect(text.contains(#"{"bytes":3}"#) && text.contains(#"{"bytes":2}"#))
    }
}
