import Domain
import Foundation
import Testing

/// `/v1/posts` over in-memory stores: the wire's post input mapped once (``PostInput``),
/// the rules and their answers, likes and the Top 10. No socket, no database.
@Suite struct PostRoutesTests {
    let app = AppOverFakes()

    func body(_ influencer: InfluencerID, name: String = "수분 크림", category: String = "beauty") -> [String: Any] {
        ["influencer_id": influencer.rawValue, "product_name": name, "price": 19_900, "category": category,
         "group_buying_start": "2026-12-04T10:00:00+09:00", "group_buying_end": "2026-12-10T23:59:59+09:00",
         "display_url": "https://cdn.example/a.jpg", "caption": "겨울 #보습", "hashtags": ["보습", "Cream"]]
    }

    @Test func aPostIsSubmittedWithEveryFieldMappedAndReadBack() async throws {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let (_, token) = app.caller()
        let created = await app.send("POST", "/v1/posts", json: body(seller, category: "뷰티"), token: token)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["category"] as? String == "beauty" && created.json["price"] as? Int == 19_900)
        #expect(created.json["caption"] as? String == "겨울 #보습" && created.json["hashtags"] as? [String] == ["보습", "cream"])
        let id = try #require(created.json["id"] as? Int)
        let read = await app.send("GET", "/v1/posts/\(id)", token: token)
        #expect(read.status == 200 && read.json["product_name"] as? String == "수분 크림" && read.json["status"] as? String == "ongoing")
    }

    @Test func aDateThatIsNotOneIsRefusedNamingItsField() async {
        let seller = app.catalog.addInfluencer("kim.beauty")
        var broken = body(seller)
        broken["group_buying_end"] = "next friday"
        let answer = await app.send("POST", "/v1/posts", json: broken, token: app.caller().token)
        #expect(answer.status == 400 && answer.field == "group_buying_end", "\(answer.text)")
    }

    @Test func anUnknownCategoryIsRefusedNamingItsField() async {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let answer = await app.send("POST", "/v1/posts", json: body(seller, category: "weapons"), token: app.caller().token)
        #expect(answer.status == 400 && answer.field == "category", "\(answer.text)")
    }

    @Test func aMissingFieldIsRefusedBeforeAnyStoreIsAsked() async {
        let seller = app.catalog.addInfluencer("kim.beauty")
        var partial = body(seller)
        partial["product_name"] = nil
        let answer = await app.send("POST", "/v1/posts", json: partial, token: app.caller().token)
        #expect(answer.status == 400 && answer.error == "invalid_body", "\(answer.text)")
    }

    @Test func anAnonymousCallerOrNoTokenCannotSubmit() async {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let anonymous = await app.send("POST", "/v1/posts", json: body(seller), token: app.caller(anonymous: true).token)
        #expect(anonymous.status == 403 && anonymous.error == "login_required", "\(anonymous.text)")
        let nobody = await app.send("POST", "/v1/posts", json: body(seller))
        #expect(nobody.status == 401 && nobody.error == "missing_token")
    }

    @Test func anEditIsTheSubmittersAndMapsOnlyWhatWasSent() async throws {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let owner = app.caller(), stranger = app.caller()
        let id = try #require(await app.send("POST", "/v1/posts", json: body(seller), token: owner.token).json["id"] as? Int)
        let refused = await app.send("PATCH", "/v1/posts/\(id)", json: ["price": 1], token: stranger.token)
        #expect(refused.status == 403 && refused.error == "forbidden")
        let edited = await app.send("PATCH", "/v1/posts/\(id)", json: ["price": 15_000, "category": "푸드"], token: owner.token)
        #expect(edited.status == 200 && edited.json["price"] as? Int == 15_000 && edited.json["category"] as? String == "food")
        #expect(edited.json["product_name"] as? String == "수분 크림", "what was not sent stays")
        let empty = await app.send("PATCH", "/v1/posts/\(id)", json: [:], token: owner.token)
        #expect(empty.status == 400)
    }

    @Test func aDeletedPostIsGoneWithItsLikes() async throws {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let owner = app.caller()
        let id = try #require(await app.send("POST", "/v1/posts", json: body(seller), token: owner.token).json["id"] as? Int)
        _ = await app.send("PUT", "/v1/posts/\(id)/like", token: app.caller().token)
        #expect(await app.send("DELETE", "/v1/posts/\(id)", token: owner.token).status == 204)
        let gone = await app.send("GET", "/v1/posts/\(id)", token: owner.token)
        #expect(gone.status == 404 && gone.error == "post_not_found")
        #expect(app.catalog.likeCount == 0)
    }

    @Test func likesAreIdempotentAndCounted() async throws {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let id = try #require(await app.send("POST", "/v1/posts", json: body(seller), token: app.caller().token).json["id"] as? Int)
        let fan = app.caller()
        for _ in 0..<2 {
            let liked = await app.send("PUT", "/v1/posts/\(id)/like", token: fan.token)
            #expect(liked.json["likes_count"] as? Int == 1 && liked.json["liked"] as? Bool == true)
        }
        let unliked = await app.send("DELETE", "/v1/posts/\(id)/like", token: fan.token)
        #expect(unliked.json["likes_count"] as? Int == 0 && unliked.json["liked"] as? Bool == false)
        let missing = await app.send("PUT", "/v1/posts/999999/like", token: fan.token)
        #expect(missing.status == 404 && missing.error == "post_not_found")
    }

    @Test func anIdThatIsNotANumberIsRefused() async {
        let answer = await app.send("GET", "/v1/posts/abc", token: app.caller().token)
        #expect(answer.status == 400 && answer.error == "invalid_parameter", "\(answer.text)")
    }

    @Test func theTopTenIsRankedByLikesAndFilteredByCategory() async throws {
        let seller = app.catalog.addInfluencer("kim.beauty")
        let owner = app.caller()
        let quiet = try #require(await app.send("POST", "/v1/posts", json: body(seller, name: "조용한"), token: owner.token).json["id"] as? Int)
        let hot = try #require(await app.send("POST", "/v1/posts", json: body(seller, name: "인기", category: "food"), token: owner.token).json["id"] as? Int)
        for _ in 0..<3 { _ = await app.send("PUT", "/v1/posts/\(hot)/like", token: app.caller().token) }
        let top = await app.send("GET", "/v1/posts/top10", token: owner.token)
        #expect(top.items.compactMap { $0["id"] as? Int } == [hot, quiet], "\(top.text)")
        let food = await app.send("GET", "/v1/posts/top10?category=food", token: owner.token)
        #expect(food.items.compactMap { $0["id"] as? Int } == [hot])
    }
}
