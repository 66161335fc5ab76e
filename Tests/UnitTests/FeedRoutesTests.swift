import Domain
import Foundation
import Testing

/// The feed's, influencers' and follows' parameters over in-memory stores: every bad one
/// answered 400 naming it, the good ones reaching the store as the query they mean.
@Suite struct FeedRoutesTests {
    let app = AppOverFakes()

    func post(_ name: String, by influencer: InfluencerID, start: TimeInterval = -3_600, end: TimeInterval = 86_400 * 3,
              category: String = "food") async throws -> Int {
        let input: [String: Any] = [
            "influencer_id": influencer.rawValue, "product_name": name, "category": category,
            "group_buying_start": ISO8601DateFormatter().string(from: AppOverFakes.now.addingTimeInterval(start)),
            "group_buying_end": ISO8601DateFormatter().string(from: AppOverFakes.now.addingTimeInterval(end)),
        ]
        let created = await app.send("POST", "/v1/posts", json: input, token: app.caller().token)
        return try #require(created.json["id"] as? Int, "\(created.text)")
    }

    @Test(arguments: [
        ("status=bogus", "status"), ("sort=random", "sort"), ("limit=0", "limit"), ("limit=51", "limit"), ("page=0", "page"),
        ("cursor=not-ours", "cursor"), ("category=weapons", "category"), ("hashtag=a&search=b", "search"),
        ("date_from=2026-13-01&date_to=2026-12-31", "date_from"), ("page=600&limit=20", "page"),
    ])
    func aBadParameterIsRefusedNamingIt(query: String, field: String) async {
        let answer = await app.send("GET", "/v1/posts?\(query)", token: app.caller().token)
        #expect(answer.status == 400 && answer.field == field, "\(query): \(answer.text)")
    }

    @Test func aPageCarriesItsWindowAndTotals() async throws {
        let seller = app.catalog.addInfluencer("seller")
        for index in 0..<5 { _ = try await post("상품 \(index)", by: seller) }
        let page = await app.send("GET", "/v1/posts?limit=2&page=2", token: app.caller().token)
        #expect(page.status == 200 && page.items.count == 2)
        #expect(page.json["total"] as? Int == 5 && page.json["page"] as? Int == 2 && page.json["limit"] as? Int == 2)
        #expect(page.json["has_next"] as? Bool == true)
    }

    @Test func filtersReachTheStoreAsTheQueryTheyMean() async throws {
        let seller = app.catalog.addInfluencer("seller")
        let food = try await post("김치", by: seller)
        _ = try await post("립스틱", by: seller, category: "beauty")
        let upcoming = try await post("예정 김치", by: seller, start: 86_400, end: 86_400 * 2)
        let byName = await app.send("GET", "/v1/posts?category=%ED%91%B8%EB%93%9C&status=ongoing", token: app.caller().token)
        #expect(byName.items.compactMap { $0["id"] as? Int } == [food], "\(byName.text)")
        let searched = await app.send("GET", "/v1/posts?search=%EA%B9%80%EC%B9%98&sort=latest", token: app.caller().token)
        #expect(Set(searched.items.compactMap { $0["id"] as? Int }) == [food, upcoming])
    }

    @Test func categoriesAreCountedForTheDay() async throws {
        let seller = app.catalog.addInfluencer("seller")
        _ = try await post("김치", by: seller)
        let counts = await app.send("GET", "/v1/categories", token: app.caller().token)
        let food = counts.items.first { $0["id"] as? String == "food" }
        #expect(counts.status == 200 && food?["post_count"] as? Int == 1 && food?["open_post_count"] as? Int == 1, "\(counts.text)")
    }

    @Test func anInfluencersPostsAreTheirsAndAMissingOneIs404() async throws {
        let mine = app.catalog.addInfluencer("mine"), other = app.catalog.addInfluencer("other")
        let id = try await post("내 것", by: mine)
        _ = try await post("남의 것", by: other)
        let posts = await app.send("GET", "/v1/influencers/\(mine.rawValue)/posts", token: app.caller().token)
        #expect(posts.items.compactMap { $0["id"] as? Int } == [id])
        let missing = await app.send("GET", "/v1/influencers/424242", token: app.caller().token)
        #expect(missing.status == 404 && missing.error == "influencer_not_found")
    }

    @Test func influencersAreSearchedByName() async throws {
        app.catalog.addInfluencer("kim.beauty", fullName: "김뷰티", followers: 50_000)
        app.catalog.addInfluencer("lee.food", followers: 80_000)
        let found = await app.send("GET", "/v1/influencers?search=beauty", token: app.caller().token)
        #expect(found.items.compactMap { $0["username"] as? String } == ["kim.beauty"], "\(found.text)")
    }

    @Test func followingIsForPermanentAccountsAndCounted() async throws {
        let seller = app.catalog.addInfluencer("seller")
        let fan = app.caller()
        let followed = await app.send("PUT", "/v1/influencers/\(seller.rawValue)/follow", token: fan.token)
        #expect(followed.status == 200 && followed.json["app_followers_count"] as? Int == 1, "\(followed.text)")
        let list = await app.send("GET", "/v1/me/follows", token: fan.token)
        #expect(list.items.count == 1)
        let anonymous = await app.send("PUT", "/v1/influencers/\(seller.rawValue)/follow", token: app.caller(anonymous: true).token)
        #expect(anonymous.status == 403)
    }

    @Test func aScheduleRangeIsCheckedBeforeTheStore() async {
        let fan = app.caller()
        let long = await app.send("GET", "/v1/me/schedule?start_date=2026-01-01&end_date=2026-12-31", token: fan.token)
        #expect(long.status == 400, "\(long.text)")
        let backwards = await app.send("GET", "/v1/me/schedule?start_date=2026-12-10&end_date=2026-12-01", token: fan.token)
        #expect(backwards.status == 400, "\(backwards.text)")
    }
}
