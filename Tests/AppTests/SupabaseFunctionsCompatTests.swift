@testable import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// `/functions/v1/*` and `/rest/v1/likes`: the app's edge functions and its PostgREST
/// table, over the same use cases as `/v1`, in process.
@Suite struct SupabaseFunctionsCompatTests {
    static let apikey = SupabaseAuthCompatTests.apikey

    private static func array(_ response: TestResponse) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: response.response.body)) as? [[String: Any]] ?? []
    }

    private static func at(_ app: TestApp, days: Double) -> String {
        var bytes: [UInt8] = []
        WireDate.append(app.clock.now.addingTimeInterval(days * 86_400), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func postsListTopTenAndScheduleAnswerAsTheFunctionDid() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let kim = try await app.influencer("kim.deals", fullName: nil)
            let open = try await app.post(influencer: kim, name: "크림", start: Self.at(app, days: -1), end: Self.at(app, days: 2))
            _ = try await app.post(influencer: kim, name: "세럼", start: Self.at(app, days: -3), end: Self.at(app, days: 1))

            let list = try await app.send("GET", "/functions/v1/posts?action=list&page=1&limit=500", token: token, headers: Self.apikey)
            #expect(list.status == 200)
            #expect(Set(list.json.keys) == ["data", "total", "page"])
            #expect(list.json["total"] as? Int == 2 && list.json["page"] as? Int == 1)
            let first = try #require((list.json["data"] as? [[String: Any]])?.first)
            #expect(first["id"] is String && first["category"] as? String == "푸드")
            let influencer = try #require(first["influencer"] as? [String: Any])
            #expect(influencer["id"] as? String == String(kim) && influencer["full_name"] as? String == "")
            let filtered = try await app.send("GET", "/functions/v1/posts?action=list&category=%ED%91%B8%EB%93%9C&search=%ED%81%AC%EB%A6%BC",
                                              token: token, headers: Self.apikey)
            #expect((filtered.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [String(open)])

            let top = try await app.send("GET", "/functions/v1/posts?action=top10", token: token, headers: Self.apikey)
            #expect(Self.array(top).map { $0["rank"] as? Int } == [1, 2])

            let today = String(Self.at(app, days: 0).prefix(10))
            let none = try await app.send("GET", "/functions/v1/posts?action=schedule&start_date=\(today)&end_date=\(today)", token: token, headers: Self.apikey)
            #expect(none.status == 200 && (none.json["meta"] as? [String: Any])?["total"] as? Int == 0)
            #expect(try await app.send("PUT", "/v1/influencers/\(kim)/follow", token: token).status == 200)
            let schedule = try await app.send("GET", "/functions/v1/posts?action=schedule&start_date=\(today)&end_date=\(today)&limit=1",
                                              token: token, headers: Self.apikey)
            #expect((schedule.json["meta"] as? [String: Any]).map { [$0["page"] as? Int, $0["limit"] as? Int, $0["total"] as? Int] } == [1, 1, 2])
            let missing = try await app.send("GET", "/functions/v1/posts?action=schedule", token: token, headers: Self.apikey)
            #expect(missing.status == 400 && missing.errorCode == "invalid_params")
            let unknown = try await app.send("GET", "/functions/v1/posts?action=explode", token: token, headers: Self.apikey)
            #expect(unknown.status == 400 && unknown.errorCode == "bad_request")
            let anonymousCaller = try await app.send("GET", "/functions/v1/posts?action=list", headers: Self.apikey)
            #expect(anonymousCaller.status == 401 && anonymousCaller.errorCode == "unauthorized")
        }
    }

    @Test func createUpdateAndDeleteTakeTheFunctionsBodies() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let (_, anonymous) = try await app.user(anonymous: true)
            let kim = try await app.influencer("kim.deals")
            let body: [String: any Sendable] = ["influencer_id": String(kim), "product_name": "핸드크림", "price": 12_000, "category": "뷰티",
                                                "group_buying_start": Self.at(app, days: 1), "group_buying_end": Self.at(app, days: 3), "display_url": NSNull()]
            let created = try await app.send("POST", "/functions/v1/posts?action=create", json: body, token: token, headers: Self.apikey)
            #expect(created.status == 201)
            #expect(created.json["category"] as? String == "뷰티" && created.json["is_liked"] as? Bool == false)
            let id = try #require(created.json["id"] as? String)
            #expect(try await app.send("POST", "/functions/v1/posts?action=create", json: body, token: anonymous, headers: Self.apikey).status == 403)
            var incomplete = body
            incomplete["product_name"] = nil
            let refused = try await app.send("POST", "/functions/v1/posts?action=create", json: incomplete, token: token, headers: Self.apikey)
            #expect(refused.status == 400 && refused.errorCode == "missing_required_field")

            let updated = try await app.send("PUT", "/functions/v1/posts?action=update", json: ["post_id": id, "price": 9_900, "category": "푸드"],
                                             token: token, headers: Self.apikey)
            #expect(updated.status == 200 && updated.json["price"] as? Int == 9_900 && updated.json["category"] as? String == "푸드")
            let nothing = try await app.send("PUT", "/functions/v1/posts?action=update", json: ["post_id": id], token: token, headers: Self.apikey)
            #expect(nothing.status == 400 && nothing.errorCode == "no_fields_to_update")
            #expect(try await app.send("DELETE", "/functions/v1/posts?action=delete", json: ["post_id": id], token: token, headers: Self.apikey).status == 204)
            #expect(try await app.send("GET", "/v1/posts/\(id)", token: token).status == 404)
        }
    }

    @Test func meInfluencersAndUploadAnswerAsTheFunctionsDid() async throws {
        try await withTestApp { app async throws in
            let (_, token) = try await app.user()
            let (_, anonymous) = try await app.user(anonymous: true)
            #expect(try await app.send("GET", "/functions/v1/me", token: anonymous, headers: Self.apikey).status == 204)
            let renamed = try await app.send("PUT", "/functions/v1/me", json: ["nickname": "미나"], token: token, headers: Self.apikey)
            #expect(renamed.status == 200 && renamed.json["nickname"] as? String == "미나")
            #expect(try await app.send("GET", "/functions/v1/me", token: token, headers: Self.apikey).json["nickname"] as? String == "미나")

            for name in ["kim.one", "kim.two", "kim.three", "kim.four", "lee.kim"] { _ = try await app.influencer(name, fullName: "김") }
            _ = try await app.influencer("park", fullName: "kim park")
            let found = Self.array(try await app.send("GET", "/functions/v1/influencers?action=search&username=KIM", token: token, headers: Self.apikey))
            #expect(found.count == 3 && found.allSatisfy { ($0["username"] as? String)?.contains("kim") == true && $0["id"] is String })
            #expect(Self.array(try await app.send("GET", "/functions/v1/influencers?action=search&username=", token: token, headers: Self.apikey)).isEmpty)

            let register = try await app.send("POST", "/functions/v1/influencers?action=register", json: ["instagram_username": "@New.Shop "],
                                               token: anonymous, headers: Self.apikey)
            #expect(register.status == 200 && register.json["status"] as? String == "processing")
            let conflict = try await app.send("POST", "/functions/v1/influencers?action=register", json: ["instagram_username": "kim.one"],
                                              token: anonymous, headers: Self.apikey)
            #expect(conflict.status == 409 && conflict.errorCode == "influencer.conflict")
            // A name Instagram cannot have, which the current backend takes and fails in the
            // background: taken, and failed at once with its reason (before: a 400 the app
            // cannot show). Again: still one request.
            for _ in 0..<2 {
                let odd = try await app.send("POST", "/functions/v1/influencers?action=register", json: ["instagram_username": "My Shop!! 공구"],
                                             token: anonymous, headers: Self.apikey)
                #expect(odd.status == 200 && odd.json["status"] as? String == "processing", "\(odd.text)")
            }
            let mine = try await app.send("GET", "/v1/influencer-requests/mine", token: anonymous)
            let requests = try #require(mine.json["data"] as? [[String: any Sendable]])
            let odd = try #require(requests.first { $0["username"] as? String == "my shop!! 공구" }, "\(mine.text)")
            #expect(odd["status"] as? String == "failed" && odd["reason"] as? String == "invalid_username" && requests.count == 2)
            let tooLong = try await app.send("POST", "/functions/v1/influencers?action=register", json: ["instagram_username": String(repeating: "a b", count: 40)],
                                             token: anonymous, headers: Self.apikey)
            #expect(tooLong.status == 400, "\(tooLong.text)")

            func upload(_ file: Data) async -> TestResponse {
                let body = ImageFixtures.multipart([("file", "photo.jpg", "image/jpeg", file)])
                let request = HTTPRequest(method: "POST", path: "/functions/v1/upload", query: [:], headers: HTTPHeaders([
                    ("Authorization", "Bearer \(token)"), ("apikey", TestApp.anonKey), ("Content-Type", "multipart/form-data; boundary=b0undary-Xy"),
                ]), body: body, remoteAddress: "203.0.113.7")
                return TestResponse(response: await app.responder.respond(to: request))
            }
            let stored = await upload(ImageFixtures.png(width: 10, height: 10))
            #expect(stored.status == 200 && Set(stored.json.keys) == ["url"])
            #expect((stored.json["url"] as? String)?.contains("/media/") == true)
            let zip = await upload(ImageFixtures.zipArchive)
            #expect(zip.status == 400 && zip.errorCode == "invalid_file_type")
        }
    }

    @Test func likesThroughPostgRESTAreTheCallersOwn() async throws {
        try await withTestApp { app async throws in
            let (me, token) = try await app.user()
            let (other, _) = try await app.user()
            let (anonymousID, anonymous) = try await app.user(anonymous: true)
            let kim = try await app.influencer("kim.deals")
            let post = try await app.post(influencer: kim, name: "크림", start: Self.at(app, days: -1), end: Self.at(app, days: 2))
            let mine = me.uuidString.lowercased()
            let representation = Self.apikey + [("Prefer", "return=representation")]

            let liked = try await app.send("POST", "/rest/v1/likes", json: ["user_id": mine, "post_id": String(post)], token: token, headers: representation)
            #expect(liked.status == 201)
            #expect(Self.array(liked).first?["post_id"] as? String == String(post))
            let minimal = try await app.send("POST", "/rest/v1/likes", json: ["user_id": mine, "post_id": post], token: token, headers: Self.apikey)
            #expect(minimal.status == 201 && minimal.response.body.isEmpty)
            #expect(try await app.send("GET", "/v1/posts/\(post)", token: token).json["likes_count"] as? Int == 1)

            let select = try await app.send("GET", "/rest/v1/likes?select=post_id&user_id=eq.\(mine)", token: token, headers: Self.apikey)
            #expect(select.status == 200)
            #expect(Self.array(select).map { $0.keys.sorted() } == [["post_id"]])

            let theirs = try await app.send("POST", "/rest/v1/likes", json: ["user_id": other.uuidString, "post_id": post], token: token, headers: Self.apikey)
            #expect(theirs.status == 403 && theirs.json["code"] as? String == "42501")
            #expect(theirs.json.keys.sorted() == ["code", "details", "hint", "message"])
            let byAnonymous = try await app.send("POST", "/rest/v1/likes", json: ["user_id": anonymousID.uuidString, "post_id": post],
                                                 token: anonymous, headers: Self.apikey)
            #expect(byAnonymous.status == 403 && byAnonymous.json["code"] as? String == "42501")
            let noPost = try await app.send("POST", "/rest/v1/likes", body: Data(#"[{"user_id": "\#(mine)", "post_id": "999999"}]"#.utf8), token: token,
                                            headers: Self.apikey + [("Content-Type", "application/json")])
            #expect(noPost.status == 409 && noPost.json["code"] as? String == "23503")
            let badFilter = try await app.send("GET", "/rest/v1/likes?select=post_id&post_id=gt.1", token: token, headers: Self.apikey)
            #expect(badFilter.status == 400 && badFilter.json["code"] as? String == "PGRST100")

            let unliked = try await app.send("DELETE", "/rest/v1/likes?user_id=eq.\(mine)&post_id=eq.\(post)", token: token, headers: representation)
            #expect(unliked.status == 200 && Self.array(unliked).count == 1)
            let again = try await app.send("DELETE", "/rest/v1/likes?user_id=eq.\(mine)&post_id=eq.\(post)", token: token, headers: Self.apikey)
            #expect(again.status == 204)
            #expect(try await app.send("GET", "/v1/posts/\(post)", token: token).json["likes_count"] as? Int == 0)
        }
    }
}
