import Domain
import Foundation
import HTTPServer

/// The Supabase-compatible surface in one place: what the unmodified 09Market app (built
/// against Supabase Auth, its edge functions and PostgREST) calls, each route behind the
/// `apikey` check and answering errors in its original's dialect.
struct SupabaseRoutes {
    let settings: SupabaseSettings
    let errors: ErrorResponses
    let endpoints: Endpoints

    // One parameter per dependency, as the composition root has them.
    func routes(authentication: Authentication, profiles: Profiles, authenticator: Authenticator, revocations: SessionRevocations,
                auth: AuthSettings, limits: AuthRateLimits, posts: Posts, feed: BrowseFeed, follows: Follows, influencers: Influencers,
                registration: InfluencerRegistration, uploads: UploadsController, categories: CategoryResolver,
                now: @escaping @Sendable () -> Date) -> [Route] {
        let authGate = SupabaseGate(settings: settings, errors: errors, dialect: .auth, endpoints: endpoints)
        let functions = SupabaseGate(settings: settings, errors: errors, dialect: .functions, endpoints: endpoints)
        return SupabaseAuthController(authentication: authentication, profiles: profiles, authenticator: authenticator, revocations: revocations,
                                      settings: auth, limits: limits, gate: authGate).routes
            + FunctionsPostsController(posts: posts, feed: feed, follows: follows, authenticator: authenticator, categories: categories,
                                       now: now, gate: functions).routes
            + FunctionsAccountController(profiles: profiles, influencers: influencers, registration: registration, uploads: uploads,
                                         authenticator: authenticator, gate: functions).routes
            + RestLikesController(posts: posts, authenticator: authenticator, now: now,
                                  gate: SupabaseGate(settings: settings, errors: errors, dialect: .postgrest, endpoints: endpoints)).routes
    }
}
