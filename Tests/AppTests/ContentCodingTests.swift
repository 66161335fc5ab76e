@testable import App
import CZlib
import Foundation
import HTTPServer
import TestSupport
import Testing

/// JSON bodies of 1 KB and more are gzipped for clients that accept it; the bytes
/// decompress to exactly the identity body, and the entity tag revalidates either form.
@Suite struct ContentCodingTests {
    @Test func largeBodiesAreGzippedForClientsThatAcceptIt() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            try await insertPosts(app, influencer: "gzip.seller", category: "food", named: "압축 시험 상품 — 김치 만두 세트")
            let identity = try await app.send("GET", "/v1/posts", token: token)
            #expect(identity.status == 200 && identity.header("Content-Encoding") == nil)
            #expect(identity.response.body.count >= ContentCoding.minimumSize)
            #expect(identity.response.headers.values(of: "Vary").contains("Accept-Encoding"))
            let strongTag = try #require(identity.header("ETag"))

            for accept in ["gzip", "br;q=1.0, gzip;q=0.8, *;q=0.1", "deflate, *", "GZIP"] {
                let gzipped = try await app.send("GET", "/v1/posts", token: token, headers: [("Accept-Encoding", accept)])
                #expect(gzipped.header("Content-Encoding") == "gzip", "\(accept)")
                #expect(gzipped.response.headers.values(of: "Vary").contains("Accept-Encoding"))
                #expect(gzipped.response.body.count < identity.response.body.count / 3, "\(gzipped.response.body.count) bytes")
                #expect(try gunzip(gzipped.response.body) == identity.response.body, "\(accept)")
                #expect(gzipped.header("ETag") == "W/" + strongTag)
            }
            for accept in ["identity", "br", "gzip;q=0", "gzip;q=0, *", "*;q=0", ""] {
                let plain = try await app.send("GET", "/v1/posts", token: token, headers: [("Accept-Encoding", accept)])
                #expect(plain.header("Content-Encoding") == nil && plain.response.body == identity.response.body, "\(accept)")
            }

            // Either form of the tag revalidates either encoding (If-None-Match compares weakly).
            let revalidated = try await app.send("GET", "/v1/posts", token: token, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", strongTag)])
            #expect(revalidated.status == 304 && revalidated.response.body.isEmpty && revalidated.header("ETag") == "W/" + strongTag)
            #expect(revalidated.header("Content-Encoding") == nil)
            #expect(try await app.send("GET", "/v1/posts", token: token, headers: [("If-None-Match", "W/" + strongTag)]).status == 304)

            // Small bodies and errors are sent as they are.
            let missing = try await app.send("GET", "/v1/posts/999999", token: token, headers: [("Accept-Encoding", "gzip")])
            #expect(missing.status == 404 && missing.header("Content-Encoding") == nil && missing.header("Vary") == nil)
        }
    }

    @Test func theEngineSendsTheGzippedLengthAndHeadMatchesGet() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            try await insertPosts(app, influencer: "gzip.wire", category: "beauty", named: "wire test product")
            try await app.serving { port in
                let headers = [("Accept-Encoding", "gzip"), ("Authorization", "Bearer \(token)")]
                let get = try await RawHTTPClient.request("GET", "/v1/posts", port: port, headers: headers)
                #expect(get.header("content-encoding") == "gzip")
                #expect(get.header("content-length") == String(get.body.count))
                let page = try JSONSerialization.jsonObject(with: try gunzip(get.body)) as? [String: Any]
                #expect((page?["data"] as? [Any])?.count == 20)
                let head = try await RawHTTPClient.request("HEAD", "/v1/posts", port: port, headers: headers)
                #expect(head.header("content-length") == get.header("content-length") && head.body.isEmpty)
            }
        }
    }

    @Test func levelZeroSendsEveryBodyAsItIs() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            try await insertPosts(app, influencer: "gzip.off", category: "food", named: "proxy compresses")
            let responder = Application.makeResponder(dependencies: app.dependencies, auth: app.auth, cors: CORSPolicy(allowedOrigins: []),
                                                      logger: app.logs.logger, gzipLevel: 0)
            let request = HTTPRequest(method: "GET", path: "/v1/posts",
                                      headers: HTTPHeaders([("Authorization", "Bearer \(token)"), ("Accept-Encoding", "gzip")]))
            let response = await responder.respond(to: request)
            #expect(response.status == 200 && response.body.count >= ContentCoding.minimumSize)
            #expect(response.headers["Content-Encoding"] == nil && response.headers["Vary"] == nil)
            #expect(response.headers["ETag"]?.hasPrefix("\"") == true)
        }
    }

    /// Twenty open posts of a new influencer: a feed page well over the 1 KB threshold.
    private func insertPosts(_ app: TestApp, influencer username: String, category: String, named name: String) async throws {
        let influencer = try await app.influencer(username)
        try await app.database.pool.withConnection { connection in
            for index in 0..<20 {
                try connection.execute("""
                    INSERT INTO posts (influencer_id, product_name, category_id, group_buying_start, group_buying_end)
                    VALUES (\(influencer), \("\(name) \(index)"), \(category), now() - interval '1 day', now() + interval '2 days')
                    """)
            }
        }
    }

    /// `data` gunzipped by zlib (the reference decoder, not ours).
    private func gunzip(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw GunzipError() }
        defer { inflateEnd(&stream) }
        var output = Data(count: 1 << 22)
        let status: Int32 = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { buffer in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(buffer.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, stream.avail_in == 0 else { throw GunzipError() }
        output.count = Int(stream.total_out)
        return output
    }

    private struct GunzipError: Error {}
}
