import Foundation
import TestSupport
import Testing

/// `POST /v1/uploads` and `GET /media/{name}` through the real engine (bodies spooled to
/// disk), against PostgreSQL.
@Suite struct UploadTests {
    private func upload(_ body: Data, port: Int, token: String, contentType: String = "multipart/form-data; boundary=b0undary-Xy")
        async throws -> (status: Int, json: [String: Any]) {
        let response = try await RawHTTPClient.request("POST", "/v1/uploads", port: port,
                                                       headers: [("Authorization", "Bearer \(token)"), ("Content-Type", contentType)], body: body)
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    @Test func anImageIsStoredByContentAndServedWithRangesAndValidators() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            try await app.serving { port in
                let image = ImageFixtures.png(width: 640, height: 480)
                // Declared as a JPEG: the bytes decide.
                let first = try await upload(ImageFixtures.multipart([("caption", nil, nil, Data("hi".utf8)), ("file", "a.jpg", "image/jpeg", image)]),
                                             port: port, token: token)
                #expect(first.status == 201, "\(first.json)")
                #expect(first.json["content_type"] as? String == "image/png")
                #expect(first.json["bytes"] as? Int == image.count && first.json["width"] as? Int == 640 && first.json["height"] as? Int == 480)
                let url = try #require(first.json["url"] as? String)
                #expect(url.hasPrefix("http://127.0.0.1/media/") && url.hasSuffix(".png"))
                let path = String(url.dropFirst("http://127.0.0.1".count))

                // Same bytes, quoted boundary, a preamble: the same name, still one file.
                let again = try await upload(ImageFixtures.multipart([("file", nil, nil, image)], boundary: "quoted b", preamble: "ignored\r\n"),
                                             port: port, token: token, contentType: "multipart/form-data; charset=utf-8; boundary=\"quoted b\"")
                #expect(again.json["url"] as? String == url)
                let stored = try FileManager.default.contentsOfDirectory(atPath: app.dependencies.mediaSettings.directory).filter { $0 != "incoming" }
                #expect(stored.count == 1)

                let whole = try await RawHTTPClient.request("GET", path, port: port)
                #expect(whole.status == 200 && whole.body == image)
                #expect(whole.header("Content-Type") == "image/png" && whole.header("X-Content-Type-Options") == "nosniff")
                #expect(whole.header("Cache-Control") == "public, max-age=31536000, immutable")
                let tag = try #require(whole.header("ETag"))
                let part = try await RawHTTPClient.request("GET", path, port: port, headers: [("Range", "bytes=1-3")])
                #expect(part.status == 206 && part.body == image[1...3] && part.header("Content-Range") == "bytes 1-3/\(image.count)")
                let tail = try await RawHTTPClient.request("GET", path, port: port, headers: [("Range", "bytes=-2")])
                #expect(tail.status == 206 && tail.body == image.suffix(2))
                let beyond = try await RawHTTPClient.request("GET", path, port: port, headers: [("Range", "bytes=\(image.count)-")])
                #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */\(image.count)")
                let cached = try await RawHTTPClient.request("GET", path, port: port, headers: [("If-None-Match", tag)])
                #expect(cached.status == 304 && cached.body.isEmpty)
                #expect(try await RawHTTPClient.request("GET", "/media/" + String(repeating: "a", count: 64) + ".png", port: port).status == 404)
                #expect(try await RawHTTPClient.request("GET", "/media/..%2F..%2Fetc%2Fpasswd", port: port).status == 404)
            }
        }
    }

    @Test func everyAcceptedFormatIsRecognisedByItsBytes() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            try await app.serving { port in
                let jpeg = try await upload(ImageFixtures.multipart([("file", "x.png", "image/png", ImageFixtures.jpeg(width: 1080, height: 1350))]), port: port, token: token)
                #expect(jpeg.json["content_type"] as? String == "image/jpeg" && jpeg.json["width"] as? Int == 1080 && jpeg.json["height"] as? Int == 1350)
                let heic = try await upload(ImageFixtures.multipart([("file", "x.heic", nil, ImageFixtures.heic)]), port: port, token: token)
                #expect(heic.json["content_type"] as? String == "image/heic" && heic.json["width"] == nil)
                let webp = try await upload(ImageFixtures.multipart([("file", "x.webp", nil, ImageFixtures.webp)]), port: port, token: token)
                #expect(webp.json["content_type"] as? String == "image/webp" && webp.json["width"] as? Int == 320 && webp.json["height"] as? Int == 240)
            }
        }
    }

    @Test func badUploadsAnswerTheirErrors() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let (_, anonymous) = try await app.user(anonymous: true)
            try await app.serving { port in
                let image = ImageFixtures.png(width: 1, height: 1)
                let cases: [(Data, String, Int, String)] = [
                    (ImageFixtures.multipart([("file", "a.jpg", "image/jpeg", ImageFixtures.zipArchive)]), "multipart/form-data; boundary=b0undary-Xy", 415, "unsupported_media_type"),
                    (ImageFixtures.multipart([("file", nil, nil, image)]), "multipart/form-data", 400, "invalid_multipart"),
                    (ImageFixtures.multipart([("file", nil, nil, image)]), "application/json", 415, "unsupported_media_type"),
                    (ImageFixtures.multipart([("file", nil, nil, image)], close: false), "multipart/form-data; boundary=b0undary-Xy", 400, "invalid_multipart"),
                    (ImageFixtures.multipart([("file", nil, nil, image)]).prefix(60), "multipart/form-data; boundary=b0undary-Xy", 400, "invalid_multipart"),
                    (ImageFixtures.multipart([("photo", "a.png", nil, image)]), "multipart/form-data; boundary=b0undary-Xy", 400, "missing_file"),
                    (ImageFixtures.multipart([("file", "a.png", nil, Data())]), "multipart/form-data; boundary=b0undary-Xy", 400, "missing_file"),
                    (Data("--b0undary-Xy\r\nContent-Type: image/png\r\n\r\nxx\r\n--b0undary-Xy--".utf8), "multipart/form-data; boundary=b0undary-Xy", 400,
                     "invalid_multipart"),
                ]
                for (index, (body, type, status, code)) in cases.enumerated() {
                    let answer = try await upload(body, port: port, token: token, contentType: type)
                    #expect(answer.status == status && answer.json["error"] as? String == code, "case \(index): \(answer)")
                }
                let limit = app.dependencies.mediaSettings.maxUploadBytes
                let tooLarge = try await upload(ImageFixtures.multipart([("file", "big.png", nil, ImageFixtures.png(width: 1, height: 1, filler: limit - 28))]),
                                                port: port, token: token)
                #expect(tooLarge.status == 413 && tooLarge.json["error"] as? String == "file_too_large", "\(tooLarge)")
                let atLimit = try await upload(ImageFixtures.multipart([("file", "big.png", nil, ImageFixtures.png(width: 1, height: 1, filler: limit - 29))]),
                                               port: port, token: token)
                #expect(atLimit.status == 201 && atLimit.json["bytes"] as? Int == limit, "\(atLimit)")
                let login = try await upload(ImageFixtures.multipart([("file", nil, nil, image)]), port: port, token: anonymous)
                #expect(login.status == 403 && login.json["error"] as? String == "login_required")
                // Nothing half-written stays behind.
                let incoming = try FileManager.default.contentsOfDirectory(atPath: app.dependencies.mediaSettings.directory + "/incoming")
                #expect(incoming.isEmpty, "\(incoming)")
            }
        }
    }

    @Test func uploadsNothingRefersToAreRemovedAfterADay() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let influencer = try await app.influencer("media.kim")
            try await app.serving { port in
                let kept = try await upload(ImageFixtures.multipart([("file", nil, nil, ImageFixtures.png(width: 2, height: 2))]), port: port, token: token)
                let profile = try await upload(ImageFixtures.multipart([("file", nil, nil, ImageFixtures.png(width: 3, height: 3))]), port: port, token: token)
                let dropped = try await upload(ImageFixtures.multipart([("file", nil, nil, ImageFixtures.png(width: 4, height: 4))]), port: port, token: token)
                let fresh = try await upload(ImageFixtures.multipart([("file", nil, nil, ImageFixtures.png(width: 5, height: 5))]), port: port, token: token)
                let urls = try [kept, profile, dropped, fresh].map { try #require($0.json["url"] as? String) }
                let post = try await app.post(influencer: influencer, name: "with image", start: "2026-12-01T00:00:00Z", end: "2026-12-02T00:00:00Z")
                try await app.database.pool.withConnection { connection in
                    try connection.execute("UPDATE posts SET display_url = \(urls[0]) WHERE id = \(post)")
                    try connection.execute("UPDATE uploads SET created_at = now() - interval '25 hours' WHERE name <> \(String(urls[3].split(separator: "/").last!))")
                }
                #expect(try await app.send("PATCH", "/v1/me", json: ["profile_url": urls[1]], token: token).status == 200)
                let removed = try await app.dependencies.media.prune(before: Date().addingTimeInterval(-86_400))
                #expect(removed == [String(urls[2].split(separator: "/").last!)])
                for (url, status) in zip(urls, [200, 200, 404, 200]) {
                    #expect(try await RawHTTPClient.request("GET", String(url.dropFirst("http://127.0.0.1".count)), port: port).status == status, "\(url)")
                }
            }
        }
    }
}
