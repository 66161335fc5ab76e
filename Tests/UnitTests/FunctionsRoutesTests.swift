import Domain
import Foundation
import Testing

/// The app's posts edge function over in-memory stores: the same use cases and the same
/// post mapping as `/v1`, in the function's shapes (ids as strings, Korean category names,
/// `{data, total, page}`), behind the gateway's `apikey`.
@Suite struct FunctionsRoutesTests {
    let app = AppOverFakes()
    var key: [(String, String)] { [("apikey", AppOverFakes.anonKey)] }

    func create(_ name: String, by influencer: InfluencerID, token: String, category: String = "푸드") async -> AppOverFakes.Answer {
        await app.send("POST", "/functions/v1/posts?action=create", json: [
            "influencer_id": String(influencer.rawValue), "product_name": name, "price": 9_900, "category": category,
            "group_buying_start": "2026-12-04T10:00:00+09:00", "group_buying_end": "2026-12-10T23:00:00+09:00",
        ], token: token, headers: key)
    }

    @Test func withoutTheGatewaysKeyNothingIsAnswered() async {
        let answer = await app.send("GET", "/functions/v1/posts?action=list", token: app.caller().token)
        #expect(answer.status == 401, "\(answer.text)")
    }

    @Test func aPostCreatedThroughTheFunctionIsMappedAsThroughTheAPI() async throws {
        let seller = app.catalog.addInfluencer("seller")
        let created = await create("김치", by: seller, token: app.caller().token)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["id"] is String && created.json["category"] as? String == "푸드" && created.json["price"] as? Int == 9_900)
    }

    @Test func aMissingFieldIsNamedInTheFunctionsWords() async {
        let answer = await app.send("POST", "/functions/v1/posts?action=create", json: ["product_name": "김치"], token: app.caller().token, headers: key)
        #expect(answer.status == 400 && answer.text.contains("influencer_id"), "\(answer.text)")
    }

    @Test func theListIsTheFeedInTheFunctionsShape() async throws {
        let seller = app.catalog.addInfluencer("seller")
        let token = app.caller().token
        for index in 0..<3 { _ = await create("상품 \(index)", by: seller, token: token) }
        let list = await app.send("GET", "/functions/v1/posts?action=list&limit=2&page=1", token: token, headers: key)
        #expect(list.status == 200 && list.items.count == 2 && list.json["total"] as? Int == 3 && list.json["page"] as? Int == 1, "\(list.text)")
    }

    @Test func anUnknownActionIsRefused() async {
        let answer = await app.send("GET", "/functions/v1/posts?action=explode", token: app.caller().token, headers: key)
        #expect(answer.status == 400, "\(answer.text)")
    }

    @Test func anUpdateChangesOnlyWhatItSendsAndNeedsSomething() async throws {
        let seller = app.catalog.addInfluencer("seller")
        let owner = app.caller()
        let id = try #require(await create("김치", by: seller, token: owner.token).json["id"] as? String)
        let empty = await app.send("PUT", "/functions/v1/posts?action=update", json: ["post_id": id], token: owner.token, headers: key)
        #expect(empty.status == 400, "\(empty.text)")
        let priced = await app.send("PUT", "/functions/v1/posts?action=update", json: ["post_id": id, "price": 5_000], token: owner.token, headers: key)
        #expect(priced.status == 200 && priced.json["price"] as? Int == 5_000 && priced.json["product_name"] as? String == "김치", "\(priced.text)")
    }

    @Test func theTopTenIsABareArrayWithRanks() async throws {
        let seller = app.catalog.addInfluencer("seller")
        let token = app.caller().token
        _ = await create("김치", by: seller, token: token)
        let response = await app.responder.respond(to: .init(method: "GET", path: "/functions/v1/posts", query: ["action": "top10"],
                                                              headers: .init([("apikey", AppOverFakes.anonKey), ("Authorization", "Bearer " + token)])))
        let top = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]]
        #expect(response.status == 200 && top?.first?["rank"] as? Int == 1, "\(String(decoding: response.body, as: UTF8.self))")
    }
}
