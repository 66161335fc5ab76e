import Cryptography
import Domain
import Foundation
import HTTPServer
import Workers

/// The product's API as one value: every route, mounted over its dependencies (ports, no
/// I/O here). Server's composition root passes live PostgreSQL-backed ones
/// (`Application.Dependencies.live`); tests pass their own.
public enum Application {
    /// What the application needs from the outside world.
    public struct Dependencies: Sendable {
        /// Category storage.
        public var categories: any CategoryRepository
        /// Answers `/ready`.
        public var readiness: any ReadinessProbe
        /// Accounts and identities.
        public var users: any UserRepository
        /// Sessions and refresh tokens.
        public var sessions: any SessionRepository
        /// Password KDF.
        public var passwords: any PasswordHasher
        /// Refresh-token generation and hashing.
        public var refreshTokens: any RefreshTokenFactory
        /// Google / Apple ID-token verification.
        public var idTokens: any IDTokenVerifier
        /// The server's own access tokens.
        public var accessTokens: any AccessTokens
        public var posts: any PostRepository
        public var likes: any LikeRepository
        public var feed: any FeedRepository
        public var influencers: any InfluencerRepository
        /// Follows of influencers and their schedule.
        public var follows: any FollowRepository
        /// Requests to add influencers.
        public var influencerRequests: any InfluencerRequestRepository
        /// How long a failed influencer request stands before the name may be requested again.
        public var influencerRequestRetryAfter: TimeInterval = InfluencerRegistration.defaultRetryAfter
        /// Uploaded images.
        public var media: any MediaLibrary
        /// Where uploads go and how they are addressed.
        public var mediaSettings: MediaSettings
        /// Threads for the file work of uploads (off the cooperative pool), bounded.
        public var fileWorkers: BoundedWorkers
        /// The Supabase-compatible surface (`/auth/v1`, `/functions/v1`, `/rest/v1`); `nil`
        /// leaves it unmounted.
        public var supabase: SupabaseSettings?
        /// `Idempotency-Key`s of retried writes.
        public var idempotency: any IdempotencyStore
        /// Where the limits that protect accounts are counted across instances; `nil`
        /// counts them in this instance's memory only.
        public var rateLimitCounters: (any RateLimitCounters)?
        /// Recently revoked sessions.
        public var revocations: SessionRevocations
        /// The ingest API (`/v1/ingest`); `nil` leaves it unmounted.
        public var ingest: IngestSettings?
        /// The operators' console (`/admin`); `nil` leaves it unmounted.
        public var console: (any ConsoleStore)?
        /// How long a console session lives unused.
        public var consoleIdleTimeout: TimeInterval = 30 * 60
        /// The instance's health as the console's overview shows it: the metrics this
        /// instance exports (pools, replicas, job lease, last backup), as exposition text.
        public var consoleHealth: @Sendable () -> String = { "" }
        /// The clock.
        public var now: @Sendable () -> Date
        /// Identifier source.
        public var newID: @Sendable () -> UUID

        public init(
            categories: any CategoryRepository, readiness: any ReadinessProbe, users: any UserRepository,
            sessions: any SessionRepository, passwords: any PasswordHasher, refreshTokens: any RefreshTokenFactory,
            idTokens: any IDTokenVerifier, accessTokens: any AccessTokens, posts: any PostRepository, likes: any LikeRepository,
            feed: any FeedRepository, influencers: any InfluencerRepository, follows: any FollowRepository,
            influencerRequests: any InfluencerRequestRepository, media: any MediaLibrary, mediaSettings: MediaSettings, fileWorkers: BoundedWorkers, idempotency: any IdempotencyStore,
            revocations: SessionRevocations, supabase: SupabaseSettings? = nil, rateLimitCounters: (any RateLimitCounters)? = nil,
            now: @escaping @Sendable () -> Date, newID: @escaping @Sendable () -> UUID
        ) {
            self.categories = categories
            self.readiness = readiness
            self.users = users
            self.sessions = sessions
            self.passwords = passwords
            self.refreshTokens = refreshTokens
            self.idTokens = idTokens
            self.accessTokens = accessTokens
            self.posts = posts
            self.likes = likes
            self.feed = feed
            self.influencers = influencers
            self.follows = follows
            self.influencerRequests = influencerRequests
            self.media = media
            self.mediaSettings = mediaSettings
            self.fileWorkers = fileWorkers
            self.idempotency = idempotency
            self.revocations = revocations
            self.supabase = supabase
            self.rateLimitCounters = rateLimitCounters
            self.now = now
            self.newID = newID
        }
    }

    /// Every route of the application: probes at the root, features under `/v1`, the
    /// Supabase-compatible surface; each product handler inside the product's middleware
    /// (reads dropped for a client that left, and `readYourWrites` when there are replicas).
    public static func routes(dependencies: Dependencies, auth: AuthSettings, logger: Logger, readYourWrites: ReadYourWrites? = nil) -> [Route] {
        let deps = dependencies
        let endpoints = Endpoints(middleware: [AbandonedReads()] + (readYourWrites.map { [$0] } ?? []))
        let health = HealthController(readiness: deps.readiness, logger: logger)
        let authenticator = Authenticator(codec: deps.accessTokens, revocations: deps.revocations, now: deps.now)
        let signedIn = AuthenticatedRoutes(authenticator: authenticator, endpoints: endpoints)
        let limits = AuthRateLimits(settings: auth, counters: deps.rateLimitCounters, now: deps.now)
        let authentication = Authentication(
            users: deps.users, sessions: deps.sessions, passwords: deps.passwords, attempts: limits.passwordAttempts,
            refreshTokens: deps.refreshTokens, idTokens: deps.idTokens, settings: auth.sessions, now: deps.now, newID: deps.newID)
        let authController = AuthController(
            authentication: authentication, signedIn: signedIn, revocations: deps.revocations, settings: auth, limits: limits)
        let posts = Posts(posts: deps.posts, likes: deps.likes, now: deps.now)
        let profiles = Profiles(users: deps.users, now: deps.now)
        let me = MeController(profiles: profiles, posts: posts, signedIn: signedIn, revocations: deps.revocations, now: deps.now)
        let resolver = CategoryResolver(categories: deps.categories)
        let postsController = PostsController(posts: posts, signedIn: signedIn, categories: resolver, now: deps.now,
                                              idempotent: IdempotentRequests(store: deps.idempotency, now: deps.now))
        let browse = BrowseFeed(feed: deps.feed, now: deps.now)
        let feed = FeedController(feed: browse, signedIn: signedIn, categories: resolver, now: deps.now)
        let influencerProfiles = Influencers(influencers: deps.influencers, feed: browse)
        let influencers = InfluencersController(influencers: influencerProfiles, signedIn: signedIn, categories: resolver, now: deps.now)
        let follows = Follows(follows: deps.follows)
        let followsController = FollowsController(follows: follows, signedIn: signedIn, now: deps.now)
        let uploads = Uploads(library: deps.media, now: deps.now)
        // Without shared counters (one instance) uploads are counted in this instance's memory.
        let counters = deps.rateLimitCounters ?? LocalRateLimitCounters()
        let admission = UploadAdmission(library: deps.media, counters: counters, limits: deps.mediaSettings.limits, now: deps.now)
        let uploadsController = UploadsController(uploads: uploads, admission: admission, settings: deps.mediaSettings,
                                                  signedIn: signedIn, workers: deps.fileWorkers)
        let registration = InfluencerRegistration(requests: deps.influencerRequests, retryAfter: deps.influencerRequestRetryAfter)
        let requests = InfluencerRequestsController(registration: registration, signedIn: signedIn)
        var v1: [Route] = feed.routes + authController.routes + me.routes + postsController.routes
        v1 += influencers.routes + followsController.routes + uploadsController.routes + requests.routes
        if let ingest = deps.ingest {
            let media = IngestMedia(uploads: uploads, admission: admission, settings: deps.mediaSettings, workers: deps.fileWorkers)
            v1 += IngestController(settings: ingest, counters: counters, requests: deps.influencerRequests, categories: resolver, media: media,
                                   endpoints: endpoints, now: deps.now).routes
        }
        var compatible: [Route] = []
        if let settings = deps.supabase {
            compatible = SupabaseRoutes(settings: settings, errors: ErrorResponses(logger: logger), endpoints: endpoints).routes(
                authentication: authentication, profiles: profiles, authenticator: authenticator,
                revocations: deps.revocations, auth: auth, limits: limits, posts: posts, feed: browse, follows: follows,
                influencers: influencerProfiles, registration: registration, uploads: uploadsController, categories: resolver, now: deps.now)
        }
        return health.routes + MediaController(uploads: uploads).routes + v1.map { $0.mounted(at: "/v1") } + compatible
    }

    /// The operators' console's routes (`/admin`), empty when it is off. Its own sign-in
    /// (the API's password budgets and lockouts), cookie sessions, no CORS.
    public static func consoleRoutes(dependencies deps: Dependencies, auth: AuthSettings, logger: Logger) -> [Route] {
        guard let store = deps.console else { return [] }
        let limits = AuthRateLimits(settings: auth, counters: deps.rateLimitCounters, now: deps.now)
        let authentication = Authentication(
            users: deps.users, sessions: deps.sessions, passwords: deps.passwords, attempts: limits.passwordAttempts,
            refreshTokens: deps.refreshTokens, idTokens: deps.idTokens, settings: auth.sessions, now: deps.now, newID: deps.newID)
        let newToken: @Sendable () -> String = { Base64URL.encode(CryptoPrimitives.randomBytes(32)) }
        let console = OperatorsConsole(store: store, authentication: authentication, idleTimeout: deps.consoleIdleTimeout, newToken: newToken,
                                       hash: { SHA256.digest(Data($0.utf8)) }, now: deps.now)
        return ConsoleController(console: console, security: ConsoleSecurity(idleTimeout: deps.consoleIdleTimeout), errors: ErrorResponses(logger: logger),
                                 endpoints: Endpoints(), categories: CategoryResolver(categories: deps.categories), health: deps.consoleHealth, workers: deps.fileWorkers,
                                 newKeyText: { ServiceKeyText.prefix($0) + newToken() }, newToken: newToken, now: deps.now).routes
    }

    /// The request pipeline with every route mounted, and the contract and its reference
    /// page when `docs` are given. `/metrics` is not among them: it has a listener of its own.
    /// The console is mounted unless `console` is false (it then has a listener of its own).
    public static func makeResponder(dependencies: Dependencies, auth: AuthSettings, cors: CORSPolicy, logger: Logger,
                                     gzipLevel: Int = 1, docs: DocsController? = nil,
                                     readYourWrites: ReadYourWrites? = nil, console: Bool = true) -> RoutingResponder {
        let routes = routes(dependencies: dependencies, auth: auth, logger: logger, readYourWrites: readYourWrites) + (docs?.routes ?? [])
            + (console ? consoleRoutes(dependencies: dependencies, auth: auth, logger: logger) : [])
        return RoutingResponder(routes: routes, cors: cors, logger: logger, gzipLevel: gzipLevel,
                                errors: ErrorResponses(logger: logger), trustedProxies: auth.trustedProxies)
    }
}
