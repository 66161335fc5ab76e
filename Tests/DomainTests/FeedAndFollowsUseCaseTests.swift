import Domain
import Fakes
import Foundation
import Testing

/// ``BrowseFeed``, ``Influencers``, ``Follows`` and ``InfluencerRegistration`` against
/// in-memory stores: what each use case asks of its store and refuses before asking. No I/O.
@Suite struct FeedAndFollowsUseCaseTests {
    /// 2026-12-04 23:30 in Korea: the next Korea day starts in 30 minutes.
    static let now = Date(timeIntervalSince1970: 1_796_394_600)
    let catalog = InMemoryCatalog()
    var feed: BrowseFeed { BrowseFeed(feed: InMemoryFeedRepository(catalog), now: { Self.now }) }
    var follows: Follows { Follows(follows: InMemoryFollowRepository(catalog)) }
    var influencers: Influencers { Influencers(influencers: InMemoryInfluencerRepository(catalog), feed: feed) }

    static func principal() -> Principal {
        Principal(userID: UserID(rawValue: UUID()), sessionID: SessionID(rawValue: UUID()), role: .user, isAnonymous: false)
    }

    @discardableResult
    func post(_ name: String, by influencer: InfluencerID, start: TimeInterval, end: TimeInterval, category: String = "food") async throws -> Post {
        let post = NewPost(influencerID: influencer, productName: name, price: nil, category: CategoryID(rawValue: category),
                           groupBuyingStart: Self.now.addingTimeInterval(start), groupBuyingEnd: Self.now.addingTimeInterval(end),
                           displayURL: nil, groupBuyingURL: nil)
        return try await InMemoryPostRepository(catalog).create(post, submittedBy: Self.principal().userID, now: Self.now)
    }

    @Test func aPageIsReadForTheKoreaDayOfNowWhichIsPreparedFirst() async throws {
        _ = try await feed.page(FeedQuery(), viewer: Self.principal())
        #expect(catalog.preparedDays.map(\.description) == ["2026-12-04"], "23:30 in Seoul is still the 4th")
    }

    @Test func statusesFollowTheWindowAtNow() async throws {
        let seller = catalog.addInfluencer("seller")
        let upcoming = try await post("곧", by: seller, start: 3_600, end: 86_400 * 2)
        let closing = try await post("마감", by: seller, start: -86_400, end: 3_600)
        let open = try await post("진행", by: seller, start: -86_400, end: 86_400 * 3)
        let closed = try await post("끝", by: seller, start: -86_400 * 3, end: -60)
        var query = FeedQuery()
        for (status, expected) in [(PostStatus.upcoming, upcoming), (.closingSoon, closing), (.ongoing, open), (.closed, closed)] {
            query.status = status
            #expect(try await feed.page(query, viewer: Self.principal()).items.map(\.id) == [expected.id], "\(status)")
        }
    }

    @Test func theDefaultOrderPutsOpenPostsBeforeClosedOnes() async throws {
        let seller = catalog.addInfluencer("seller")
        let closed = try await post("끝", by: seller, start: -86_400 * 3, end: -60)
        let open = try await post("진행", by: seller, start: -86_400, end: 86_400)
        let page = try await feed.page(FeedQuery(), viewer: Self.principal())
        #expect(page.items.map(\.id) == [open.id, closed.id] && page.total == 2 && !page.hasMore)
    }

    @Test func categoriesCountAllAndOpenPostsAfterPreparingTheDay() async throws {
        let seller = catalog.addInfluencer("seller")
        try await post("a", by: seller, start: -86_400, end: 86_400, category: "pet")
        try await post("b", by: seller, start: -86_400 * 2, end: -86_400, category: "pet")
        let counts = try await feed.categories()
        let pet = try #require(counts.first { $0.category.id.rawValue == "pet" })
        #expect(pet.postCount == 2 && pet.openPostCount == 1 && counts.count == 13)
        #expect(catalog.preparedDays.count == 1)
    }

    @Test func aScopedFeedCarriesTheScopeToItsStore() async throws {
        _ = try await feed.scoped(RequestScope(readsAfter: 7)).page(FeedQuery(), viewer: Self.principal())
        _ = try await influencers.scoped(RequestScope(readsAfter: 8)).search(nil, viewer: Self.principal(), page: 1, limit: 5)
        #expect(catalog.readScopes.map(\.readsAfter) == [7, 8])
    }

    @Test func anInfluencersPostsAreTheFeedNarrowedToThem() async throws {
        let mine = catalog.addInfluencer("mine"), other = catalog.addInfluencer("other")
        let post = try await post("내 것", by: mine, start: -60, end: 86_400)
        try await self.post("남의 것", by: other, start: -60, end: 86_400)
        #expect(try await influencers.posts(mine, query: FeedQuery(), viewer: Self.principal()).items.map(\.id) == [post.id])
        await #expect(throws: DomainError.notFound("influencer")) {
            try await influencers.posts(InfluencerID(rawValue: 999), query: FeedQuery(), viewer: Self.principal())
        }
    }

    @Test func influencersAreSearchedByNameAndPagedByFollowers() async throws {
        catalog.addInfluencer("kim.beauty", fullName: "김뷰티", followers: 50_000)
        catalog.addInfluencer("lee.food", fullName: "이푸드", followers: 80_000)
        catalog.addInfluencer("park.beauty", followers: 20_000)
        let found = try await influencers.search("beauty", viewer: Self.principal(), page: 1, limit: 1)
        #expect(found.total == 2 && found.items.map(\.summary.username) == ["kim.beauty"])
        #expect(try await influencers.search("푸드", viewer: Self.principal(), page: 1, limit: 5).items.map(\.summary.username) == ["lee.food"])
    }

    @Test func followingIsIdempotentAndCounted() async throws {
        let seller = catalog.addInfluencer("seller")
        let fan = try Self.principal().permanent()
        #expect(try await follows.follow(seller, by: fan) == 1)
        #expect(try await follows.follow(seller, by: fan) == 1)
        #expect(try await follows.followed(by: fan.principal, page: 1, limit: 10).items.map(\.isFollowed) == [true])
        #expect(try await follows.unfollow(seller, by: fan) == 0)
        #expect(try await follows.unfollow(seller, by: fan) == 0)
        await #expect(throws: DomainError.notFound("influencer")) { try await follows.follow(InfluencerID(rawValue: 404), by: fan) }
    }

    @Test func aScheduleSpansAtMostAQuarterOfKoreaDays() async throws {
        let first = KoreaDay("2026-12-01")!
        var last = first
        for _ in 1..<Follows.longestRange { last = last.next }
        _ = try await follows.schedule(first...last, viewer: Self.principal(), page: 1, limit: 10)
        do {
            _ = try await follows.schedule(first...last.next, viewer: Self.principal(), page: 1, limit: 10)
            Issue.record("93 days were accepted")
        } catch DomainError.invalid(let field, _) {
            #expect(field == "end_date")
        }
    }

    @Test func theScheduleHoldsFollowedPostsOverlappingTheDaysEndingSoonestFirst() async throws {
        let followed = catalog.addInfluencer("followed"), other = catalog.addInfluencer("other")
        let fan = try Self.principal().permanent()
        _ = try await follows.follow(followed, by: fan)
        let later = try await post("later", by: followed, start: -86_400, end: 86_400 * 2)
        let sooner = try await post("sooner", by: followed, start: -86_400, end: 3_600)
        try await post("not followed", by: other, start: -86_400, end: 3_600)
        try await post("after the days", by: followed, start: 86_400 * 10, end: 86_400 * 11)
        let today = KoreaDay(containing: Self.now)
        let page = try await follows.schedule(today...today.next.next, viewer: fan.principal, page: 1, limit: 10)
        #expect(page.items.map(\.id) == [sooner.id, later.id])
        #expect(ScheduleDay.grouping(page.items).map(\.day) == [today.next, today.next.next], "grouped by the Korea day each ends")
    }

    @Test func aRequestIsForTheNormalisedNameAndOnlyOnce() async throws {
        let registration = InfluencerRegistration(requests: InMemoryInfluencerRequests(catalog: catalog, now: { Self.now }))
        let first = try await registration.submit("  @Kim.Beauty ", by: Self.principal())
        #expect(first.created && first.request.username == "kim.beauty" && first.request.status == .processing)
        let again = try await registration.submit("kim.beauty", by: Self.principal())
        #expect(!again.created && again.request.id == first.request.id)
        await #expect(throws: DomainError.self) { try await registration.submit("no spaces allowed", by: Self.principal()) }
    }

    @Test func aNameNoAccountCanHaveIsRecordedFailedAsTheAppsBackendDid() async throws {
        let registration = InfluencerRegistration(requests: InMemoryInfluencerRequests(catalog: catalog, now: { Self.now }))
        let requester = Self.principal()
        let sent = try await registration.submitAsSent("김 뷰티", by: requester)
        #expect(sent.request.status == .failed && sent.request.reason == .invalidUsername)
        #expect(try await registration.mine(requester, page: 1, limit: 10).items.map(\.username) == ["김 뷰티"])
    }

    @Test func anExistingInfluencerCannotBeRequestedAndOpenRequestsAreCapped() async throws {
        catalog.addInfluencer("taken")
        let registration = InfluencerRegistration(requests: InMemoryInfluencerRequests(catalog: catalog, now: { Self.now }))
        let requester = Self.principal()
        await #expect(throws: DomainError.conflict("influencer")) { try await registration.submit("taken", by: requester) }
        for index in 0..<InfluencerRegistration.openLimit { _ = try await registration.submit("name\(index)", by: requester) }
        await #expect(throws: DomainError.self) { try await registration.submit("one.more", by: requester) }
    }
}
