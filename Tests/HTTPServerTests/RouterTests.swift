@testable import HTTPServer
import Testing

@Suite struct RouterTests {
    private let router = Router(routes: [
        Route("GET", "/v1/posts") { _, _ in .empty() },
        Route("POST", "/v1/posts") { _, _ in .empty() },
        Route("GET", "/v1/posts/{id}") { _, _ in .empty() },
        Route("PUT", "/v1/posts/{id}/like") { _, _ in .empty() },
        Route("DELETE", "/v1/posts/{id}/like") { _, _ in .empty() },
        Route("GET", "/") { _, _ in .empty() },
    ])

    @Test func capturesPathParameters() throws {
        guard case .found(let route, let parameters) = router.match(method: "PUT", path: "/v1/posts/42/like") else {
            Issue.record("no match")
            return
        }
        #expect(route.pattern.description == "/v1/posts/{id}/like")
        #expect(parameters == ["id": "42"])
    }

    @Test func literalSegmentsMustMatchExactly() {
        guard case .notFound = router.match(method: "GET", path: "/v1/post") else {
            Issue.record("expected 404")
            return
        }
        guard case .notFound = router.match(method: "GET", path: "/v1/posts/1/2") else {
            Issue.record("expected 404 for an extra segment")
            return
        }
    }

    @Test func aTrailingSlashNamesTheSameResourceButEmptySegmentsDoNot() {
        guard case .found = router.match(method: "GET", path: "/v1/posts/") else {
            Issue.record("trailing slash should match")
            return
        }
        guard case .notFound = router.match(method: "GET", path: "/v1//posts") else {
            Issue.record("an empty segment should not match")
            return
        }
        guard case .found = router.match(method: "GET", path: "/") else {
            Issue.record("root should match")
            return
        }
    }

    @Test func anotherMethodOnAKnownPathListsTheAllowedMethods() {
        guard case .methodNotAllowed(let allowed) = router.match(method: "PATCH", path: "/v1/posts/7/like") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == ["PUT", "DELETE", "OPTIONS"])
        guard case .methodNotAllowed(let postsAllowed) = router.match(method: "DELETE", path: "/v1/posts") else {
            Issue.record("expected 405")
            return
        }
        #expect(postsAllowed == ["GET", "POST", "HEAD", "OPTIONS"])
    }

    @Test func headIsAnsweredByTheGetRoute() {
        guard case .found(let route, _) = router.match(method: "HEAD", path: "/v1/posts/3") else {
            Issue.record("HEAD should use the GET route")
            return
        }
        #expect(route.method == "GET")
    }

    @Test func literalSegmentsWinOverCapturesWhateverTheOrder() {
        let router = Router(routes: [
            Route("GET", "/v1/posts/{id}") { _, _ in .empty() },
            Route("PATCH", "/v1/posts/{id}") { _, _ in .empty() },
            Route("PUT", "/v1/posts/{id}/like") { _, _ in .empty() },
            Route("GET", "/v1/posts/top10") { _, _ in .empty() },
        ])
        guard case .found(let top, let none) = router.match(method: "GET", path: "/v1/posts/top10") else {
            Issue.record("top10 should match its literal route")
            return
        }
        #expect(top.pattern.description == "/v1/posts/top10" && none.isEmpty)
        guard case .methodNotAllowed(let allowed) = router.match(method: "PATCH", path: "/v1/posts/top10") else {
            Issue.record("PATCH on the literal path is 405, not a post id")
            return
        }
        #expect(allowed == ["GET", "HEAD", "OPTIONS"])
        guard case .found(_, let parameters) = router.match(method: "PATCH", path: "/v1/posts/7") else {
            Issue.record("a capture still matches other segments")
            return
        }
        #expect(parameters == ["id": "7"])
        // A literal branch that leads nowhere falls back to the capture.
        guard case .found(let like, let liked) = router.match(method: "PUT", path: "/v1/posts/top10/like") else {
            Issue.record("expected the capture route")
            return
        }
        #expect(like.pattern.description == "/v1/posts/{id}/like" && liked == ["id": "top10"])
    }

    @Test func mountingPrefixesThePattern() {
        let mounted = Route("GET", "/categories") { _, _ in .empty() }.mounted(at: "/v1")
        #expect(mounted.pattern.description == "/v1/categories")
    }
}
