import Domain
import Foundation
import Testing

/// The rules every door applies, one behaviour per test: the field each names, the value
/// each keeps.
@Suite struct RulesTests {
    static let now = Date(timeIntervalSince1970: 1_796_394_600)

    func field(_ body: () throws -> Any) -> String?? {
        do {
            _ = try body()
            return .none
        } catch DomainError.invalid(let field, _) {
            return .some(field)
        } catch {
            return .some("unexpected: \(error)")
        }
    }

    // Product names and prices
    @Test func aProductNameIsTrimmedAndMayNotBeBlank() throws {
        #expect(try PostRules.productName("  수분 크림 ") == "수분 크림")
        #expect(field { try PostRules.productName("   ") } == .some("product_name"))
    }

    @Test func aProductNameIsAtMost200CodePoints() throws {
        #expect(try PostRules.productName(String(repeating: "가", count: 200)).count == 200)
        #expect(field { try PostRules.productName(String(repeating: "가", count: 201)) } == .some("product_name"))
    }

    @Test func aPriceIsWholeWonWithinTheOriginalsIntegerColumn() throws {
        #expect(try PostRules.price(0) == 0 && PostRules.price(2_147_483_647) == 2_147_483_647)
        #expect(field { try PostRules.price(-1) } == .some("price"))
        #expect(field { try PostRules.price(2_147_483_648) } == .some("price"))
    }

    // Windows and times
    @Test func aWindowEndsAfterItStartsAndLastsAtMost366Days() {
        #expect(field { try PostRules.window(start: Self.now, end: Self.now) } == .some("group_buying_end"))
        #expect(field { try PostRules.window(start: Self.now, end: Self.now.addingTimeInterval(PostRules.longestWindow)) } == .none)
        #expect(field { try PostRules.window(start: Self.now, end: Self.now.addingTimeInterval(PostRules.longestWindow + 1)) } == .some("group_buying_end"))
    }

    @Test func aWindowStartsWithin366DaysOfThePostsMaking() {
        #expect(field { try PostRules.lead(start: Self.now.addingTimeInterval(-PostRules.longestWindow), postedAt: Self.now) } == .none)
        #expect(field { try PostRules.lead(start: Self.now.addingTimeInterval(PostRules.longestWindow + 60), postedAt: Self.now) } == .some("group_buying_start"))
    }

    @Test func postedAtLiesBetweenInstagramsOpeningAndNowWithSkew() {
        #expect(field { try PostRules.postedAt(PostRules.earliestPostedAt, now: Self.now) } == .none)
        #expect(field { try PostRules.postedAt(PostRules.earliestPostedAt.addingTimeInterval(-1), now: Self.now) } == .some("posted_at"))
        #expect(field { try PostRules.postedAt(Self.now.addingTimeInterval(PostRules.postedAtSkew), now: Self.now) } == .none)
        #expect(field { try PostRules.postedAt(Self.now.addingTimeInterval(PostRules.postedAtSkew + 1), now: Self.now) } == .some("posted_at"))
    }

    // Hashtags
    @Test func hashtagsLoseTheirHashAreFoldedAndDeduplicatedInOrder() throws {
        #expect(try PostRules.hashtags(["#Cream", "cream", "보습", "#보습", "winter_2026"]) == ["cream", "보습", "winter_2026"])
    }

    @Test func aHashtagIsLettersDigitsUnderscoreAndHangulOnly() {
        #expect(field { try PostRules.hashtag("no-dash") } == .some("hashtags"))
        #expect(field { try PostRules.hashtag("#") } == .some("hashtags"))
        #expect(field { try PostRules.hashtag("²") } == .some("hashtags"), "a superscript two is not a digit here")
        #expect(field { try PostRules.hashtag("ㄱㅏ") } == .none, "jamo are Hangul")
    }

    @Test func aPostHasAtMost30Hashtags() throws {
        #expect(try PostRules.hashtags((0..<30).map { "t\($0)" }).count == 30)
        #expect(field { try PostRules.hashtags((0..<31).map { "t\($0)" }) } == .some("hashtags"))
    }

    @Test func hashtagsWrittenAsTextSplitOnSpacesCommasAndTabs() throws {
        #expect(try PostRules.hashtags(text: "#a, b\tc  #d") == ["a", "b", "c", "d"])
    }

    // Details
    @Test func aCaptionKeepsLineBreaksButNoOtherControlCharacters() {
        #expect(field { try PostRules.validated(PostDetails(caption: "줄\n바꿈\t탭")) } == .none)
        #expect(field { try PostRules.validated(PostDetails(caption: "벨\u{7}")) } == .some("caption"))
        #expect(field { try PostRules.validated(PostDetails(caption: String(repeating: "a", count: 2201))) } == .some("caption"))
    }

    @Test func aPostTypeIsAShortWord() {
        #expect(field { try PostRules.validated(PostDetails(postType: "Sidecar")) } == .none)
        #expect(field { try PostRules.validated(PostDetails(postType: "two words")) } == .some("post_type"))
    }

    @Test func anInstagramPostIDIsDigitsOrAShortcode() {
        #expect(field { try PostRules.validated(PostDetails(instagramPostID: "3512345678901234567")) } == .none)
        #expect(field { try PostRules.validated(PostDetails(instagramPostID: "Cx_9-ab")) } == .none)
        #expect(field { try PostRules.validated(PostDetails(instagramPostID: "../etc")) } == .some("instagram_post_id"))
    }

    @Test func aPostURLIsAnHTTPURLWithItsSchemeLowerCased() throws {
        #expect(try PostRules.validated(PostDetails(postURL: "HTTPS://www.instagram.com/p/abc/")).postURL == "https://www.instagram.com/p/abc/")
        #expect(field { try PostRules.validated(PostDetails(postURL: "javascript:alert(1)")) } == .some("post_url"))
    }

    // Profiles and URLs
    @Test func aNicknameIsOneTo30CodePointsTrimmed() throws {
        #expect(try ProfileRules.nickname(" 공구왕 ") == "공구왕")
        #expect(field { try ProfileRules.nickname(String(repeating: "가", count: 31)) } == .some("nickname"))
        #expect(field { try ProfileRules.nickname("  ") } == .some("nickname"))
    }

    @Test func urlsAreAbsoluteHTTPOfAtMost2048Bytes() throws {
        #expect(try ProfileRules.url("http://cdn.example:8080/a%20b?x=1", field: "profile_url") == "http://cdn.example:8080/a%20b?x=1")
        #expect(field { try ProfileRules.url("ftp://cdn.example/a", field: "profile_url") } == .some("profile_url"))
        #expect(field { try ProfileRules.url("https://cdn.example/한글", field: "profile_url") } == .some("profile_url"), "non-ASCII must be percent-encoded")
        #expect(field { try ProfileRules.url("https://cdn.example/" + String(repeating: "a", count: 2040), field: "profile_url") } == .some("profile_url"))
    }

    // Instagram usernames
    @Test func aUsernameIsNormalisedFromWhatPeopleType() throws {
        #expect(try InstagramUsername.normalized(" @Kim.Beauty_01 ") == "kim.beauty_01")
    }

    @Test(arguments: [".kim", "kim.", "kim..beauty", "kim beauty", "김뷰티", "", String(repeating: "a", count: 31)])
    func aUsernameInstagramCannotHaveIsRefused(name: String) {
        #expect(field { try InstagramUsername.normalized(name) } == .some("instagram_username"))
    }

    @Test func theRefusalNamesTheFieldItCameIn() {
        #expect(field { try InstagramUsername.normalized("a b", field: "influencer_username") } == .some("influencer_username"))
    }

    @Test func aNameAsSentIsKeptAsTheOriginalBackendKeptIt() throws {
        #expect(try InstagramUsername.asSent("  @김 뷰티\u{FEFF} ") == "김 뷰티")
        #expect(field { try InstagramUsername.asSent("@  ") } == .some("instagram_username"))
        #expect(field { try InstagramUsername.asSent("a\u{0}b") } == .some("instagram_username"))
    }

    @Test func anAccountIDIsDigitsOnly() throws {
        #expect(try InstagramUsername.accountID("1234567890") == "1234567890")
        #expect(field { try InstagramUsername.accountID("12a") } == .some("instagram_id"))
        #expect(field { try InstagramUsername.accountID(String(repeating: "1", count: 33)) } == .some("instagram_id"))
    }

    // Statuses and paging
    @Test func aStatusFollowsTheWindowWithClosingSoonInItsLastDay() {
        let start = Self.now.addingTimeInterval(-3_600)
        #expect(PostStatus(start: Self.now.addingTimeInterval(1), end: Self.now.addingTimeInterval(10), now: Self.now) == .upcoming)
        #expect(PostStatus(start: start, end: Self.now.addingTimeInterval(PostStatus.closingSoonWindow), now: Self.now) == .ongoing)
        #expect(PostStatus(start: start, end: Self.now.addingTimeInterval(PostStatus.closingSoonWindow - 1), now: Self.now) == .closingSoon)
        #expect(PostStatus(start: start, end: Self.now, now: Self.now) == .closingSoon, "the last instant is still open")
        #expect(PostStatus(start: start, end: Self.now.addingTimeInterval(-1), now: Self.now) == .closed)
    }

    @Test func countedListsPageOnlyAsFarAsTheirTotalIsExact() {
        var query = FeedQuery()
        #expect(query.offsetReach == FeedPage.offsetLimit, "the plain feed's total comes from counters")
        query.search = "크림"
        #expect(query.offsetReach == FeedPage.exactTotalLimit)
        query = FeedQuery()
        query.status = .closed
        #expect(query.offsetReach == FeedPage.offsetLimit, "closed posts are counted by counters too")
        query.status = .ongoing
        #expect(query.offsetReach == FeedPage.exactTotalLimit)
    }

    @Test func withoutSearchKeepsEveryOtherFilter() {
        var query = FeedQuery()
        query.search = "크림"
        query.category = CategoryID(rawValue: "beauty")
        query.page = 3
        let plain = query.withoutSearch
        #expect(plain.search == nil && plain.category == query.category && plain.page == 3)
    }

    @Test func scheduleDaysGroupPostsByTheKoreaDayTheyEnd() {
        let influencer = InfluencerSummary(id: InfluencerID(rawValue: 1), username: "a", fullName: nil, profilePicURL: nil, externalURL: nil)
        func post(_ id: Int, endsAt offset: TimeInterval) -> Post {
            Post(id: PostID(rawValue: id), productName: "p", price: nil, category: Category(id: CategoryID(rawValue: "food"), name: "푸드"),
                 displayURL: nil, groupBuyingURL: nil, groupBuyingStart: Self.now, groupBuyingEnd: Self.now.addingTimeInterval(offset),
                 likesCount: 0, postedAt: Self.now, submittedBy: nil, influencer: influencer, isLiked: false)
        }
        // now is 23:30 in Korea: +20 min is the same day, +40 min the next.
        let days = ScheduleDay.grouping([post(1, endsAt: 600), post(2, endsAt: 1_200), post(3, endsAt: 2_400)])
        #expect(days.map { $0.posts.map(\.id.rawValue) } == [[1, 2], [3]])
    }

    @Test func aPostIsTheSameListingWhateverItsLikes() {
        let influencer = InfluencerSummary(id: InfluencerID(rawValue: 1), username: "a", fullName: nil, profilePicURL: nil, externalURL: nil)
        let post = Post(id: PostID(rawValue: 1), productName: "p", price: 1, category: Category(id: CategoryID(rawValue: "food"), name: "푸드"),
                        displayURL: nil, groupBuyingURL: nil, groupBuyingStart: Self.now, groupBuyingEnd: Self.now, likesCount: 1,
                        postedAt: Self.now, submittedBy: nil, influencer: influencer, isLiked: false)
        #expect(post.isSameListing(as: post.seen(likesCount: 9, isLiked: true)))
        #expect(!post.isSameListing(as: Post(id: post.id, productName: "q", price: 1, category: post.category, displayURL: nil, groupBuyingURL: nil,
                                            groupBuyingStart: Self.now, groupBuyingEnd: Self.now, likesCount: 1, postedAt: Self.now,
                                            submittedBy: nil, influencer: influencer, isLiked: false)))
    }
}
