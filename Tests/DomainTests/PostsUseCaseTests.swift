import Domain
import Fakes
import Foundation
import Testing

/// The ``Posts`` use cases against an in-memory catalog: the rules they apply before the
/// store is asked, and what the store's answers become. No I/O.
@Suite struct PostsUseCaseTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    let catalog = InMemoryCatalog()
    var repository: InMemoryPostRepository { InMemoryPostRepository(catalog) }
    var posts: Posts { Posts(posts: repository, likes: repository, now: { Self.now }) }

    static func principal(_ role: Role = .user, anonymous: Bool = false) -> Principal {
        Principal(userID: UserID(rawValue: UUID()), sessionID: SessionID(rawValue: UUID()), role: role, isAnonymous: anonymous)
    }

    func newPost(_ name: String, start: TimeInterval = -3_600, end: TimeInterval = 86_400 * 3, category: String = "food") -> NewPost {
        let influencer = catalog.addInfluencer("seller." + String(UUID().uuidString.prefix(6)).lowercased())
        return NewPost(influencerID: influencer, productName: name, price: 12_000, category: CategoryID(rawValue: category),
                       groupBuyingStart: Self.now.addingTimeInterval(start), groupBuyingEnd: Self.now.addingTimeInterval(end),
                       displayURL: "https://cdn.example/a.jpg", groupBuyingURL: nil)
    }

    @Test func aSubmittedPostIsStoredTrimmedAndReadBackAsItsViewerSeesIt() async throws {
        let owner = try Self.principal().permanent()
        let created = try await posts.create(newPost("  크림  "), by: owner)
        #expect(created.productName == "크림" && created.submittedBy == owner.userID && created.postedAt == Self.now)
        let read = try await posts.post(created.id, viewer: owner.principal)
        #expect(read == created)
    }

    @Test func aPostBreakingARuleNeverReachesTheStore() async throws {
        let owner = try Self.principal().permanent()
        await #expect(throws: DomainError.self) { try await posts.create(newPost("창문", start: 3_600, end: -3_600), by: owner) }
        await #expect(throws: DomainError.self) { try await posts.create(newPost(" "), by: owner) }
        #expect(try await posts.submitted(by: owner.principal, page: 1, limit: 10).total == 0)
    }

    @Test func onlyItsSubmitterOrAnAdminMayEditOrDeleteAPost() async throws {
        let owner = try Self.principal().permanent(), stranger = try Self.principal().permanent(), admin = try Self.principal(.admin).permanent()
        let post = try await posts.create(newPost("텀블러"), by: owner)
        var changes = PostChanges()
        changes.price = 9_900
        await #expect(throws: DomainError.forbidden("post")) { try await posts.update(post.id, changes: changes, by: stranger) }
        await #expect(throws: DomainError.forbidden("post")) { try await posts.delete(post.id, by: stranger) }
        #expect(try await posts.update(post.id, changes: changes, by: admin).price == 9_900)
        try await posts.delete(post.id, by: owner)
        await #expect(throws: DomainError.notFound("post")) { try await posts.post(post.id, viewer: owner.principal) }
    }

    @Test func anEditIsCheckedFieldByFieldAndAnEmptyOneRefused() async throws {
        let owner = try Self.principal().permanent()
        let post = try await posts.create(newPost("가방"), by: owner)
        await #expect(throws: DomainError.self) { try await posts.update(post.id, changes: PostChanges(), by: owner) }
        var bad = PostChanges()
        bad.displayURL = "ftp://cdn.example/a.jpg"
        do {
            _ = try await posts.update(post.id, changes: bad, by: owner)
            Issue.record("an ftp URL was accepted")
        } catch DomainError.invalid(let field, _) {
            #expect(field == "display_url")
        }
        var negative = PostChanges()
        negative.price = -1
        await #expect(throws: DomainError.self) { try await posts.update(post.id, changes: negative, by: owner) }
        #expect(try await posts.post(post.id, viewer: owner.principal).price == 12_000, "nothing changed")
    }

    @Test func likesAreOnePerUserAndPostAndCountedExactly() async throws {
        let owner = try Self.principal().permanent(), fan = try Self.principal().permanent()
        let post = try await posts.create(newPost("수건"), by: owner)
        #expect(try await posts.like(post.id, by: fan) == 1)
        #expect(try await posts.like(post.id, by: fan) == 1, "a second like changes nothing")
        #expect(try await posts.like(post.id, by: owner) == 2)
        let seen = try await posts.post(post.id, viewer: fan.principal)
        #expect(seen.likesCount == 2 && seen.isLiked)
        #expect(try await posts.unlike(post.id, by: fan) == 1)
        #expect(try await posts.unlike(post.id, by: fan) == 1, "a second unlike changes nothing")
        #expect(try await posts.post(post.id, viewer: fan.principal).isLiked == false)
    }

    @Test func deletingAPostTakesItsLikesWithIt() async throws {
        let owner = try Self.principal().permanent(), fan = try Self.principal().permanent()
        let post = try await posts.create(newPost("컵"), by: owner)
        _ = try await posts.like(post.id, by: fan)
        try await posts.delete(post.id, by: owner)
        #expect(catalog.likeCount == 0)
        #expect(try await posts.likedIDs(by: fan.principal, limit: 10).isEmpty)
    }

    @Test func theCallersLikesComeMostRecentFirstPageByPage() async throws {
        let owner = try Self.principal().permanent(), fan = try Self.principal().permanent()
        var ids: [PostID] = []
        for index in 0..<5 { ids.append(try await posts.create(newPost("상품 \(index)"), by: owner).id) }
        for id in ids { _ = try await posts.like(id, by: fan) }
        let second = try await posts.liked(by: fan.principal, page: 2, limit: 2)
        #expect(second.total == 5 && second.items.map(\.id) == [ids[2], ids[1]])
        #expect(try await posts.likedIDs(by: fan.principal, limit: 3) == [ids[4], ids[3], ids[2]])
    }

    @Test func topTenRanksThisWeeksStartedPostsByLikes() async throws {
        let owner = try Self.principal().permanent()
        let quiet = try await posts.create(newPost("조용한"), by: owner)
        let hot = try await posts.create(newPost("인기", category: "beauty"), by: owner)
        _ = try await posts.create(newPost("예정", start: 86_400, end: 86_400 * 2), by: owner)
        for _ in 0..<3 { _ = try await posts.like(hot.id, by: try Self.principal().permanent()) }
        #expect(try await posts.top10(category: nil, viewer: Self.principal()).map(\.id) == [hot.id, quiet.id], "not started: not ranked")
        #expect(try await posts.top10(category: CategoryID(rawValue: "food"), viewer: Self.principal()).map(\.id) == [quiet.id])
    }

    @Test func readsAreScopedAndLikesAreNot() async throws {
        let owner = try Self.principal().permanent()
        let post = try await posts.create(newPost("가위"), by: owner)
        let scoped = posts.scoped(RequestScope(readsAfter: 42))
        _ = try await scoped.post(post.id, viewer: owner.principal)
        _ = try await scoped.like(post.id, by: owner)
        #expect(catalog.readScopes.map(\.readsAfter) == [42], "one read, after the request's own write")
    }

    @Test func anAnonymousCallerCannotBecomeASubmitter() {
        #expect(throws: AuthError.loginRequired) { try Self.principal(anonymous: true).permanent() }
    }
}
