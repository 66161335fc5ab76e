import Foundation

/// Authentication and account failures. The HTTP layer maps each to one status and code.
public enum AuthError: Error, Sendable, Equatable {
    /// No bearer token was sent (401 `missing_token`).
    case missingToken
    /// The token is malformed, forged, for another audience, or unknown (401 `invalid_token`).
    case invalidToken(String)
    /// The access token's `exp` has passed (401 `token_expired`).
    case tokenExpired
    /// The session was logged out, deleted or expired (401 `session_revoked`).
    case sessionRevoked
    /// A rotated refresh token was used again after the grace window; the session is
    /// now revoked (401 `refresh_token_reused`).
    case refreshTokenReused
    /// Email or password is wrong (400 `invalid_credentials`).
    case invalidCredentials
    /// The email already has an account (409 `email_taken`).
    case emailTaken
    /// The identity belongs to another account (409 `identity_exists`).
    case identityExists
    /// Upgrade was called by a permanent user (400 `already_permanent`).
    case alreadyPermanent
    /// The action needs a permanent user (403 `login_required`).
    case loginRequired
    /// The identity provider is not configured on this server (400 `provider_disabled`).
    case providerDisabled(IdentityProvider)
    /// Too many attempts; retry after the given seconds (429 `rate_limited`).
    case rateLimited(retryAfterSeconds: Int)
    /// This instance could not learn recent sign-outs lately, so a token may not write
    /// until it has (503 `revocations_unavailable`): fail closed, not open.
    case revocationsUnavailable
}
