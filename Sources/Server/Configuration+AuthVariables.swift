import App
import Cryptography
import Domain
import Foundation
import HTTPServer

extension Configuration {
    /// Tokens, sessions, passwords, rate limits and sign-in providers.
    static let auth: [Variable] = [
        .optional("JWT_SECRET", \.jwtSecret, default: "(see text)",
                  "HMAC key for access tokens, ≥ 32 bytes. Required with DATABASE_URL; embedded: kept in the data dir.") {
            $0.utf8.count < 32 ? "must be at least 32 bytes" : nil
        },
        .list("JWT_PREVIOUS_SECRETS", \.jwtPreviousSecrets, "Comma-separated older keys still accepted (key rotation).") {
            $0.utf8.count < 32 ? "every secret must be at least 32 bytes" : nil
        },
        .string("JWT_ISSUER", \.auth.issuer, "iss of access tokens."),
        .string("JWT_AUDIENCE", \.auth.audience, "aud of access tokens."),
        .integer("ACCESS_TOKEN_TTL_SECONDS", in: 60...86_400, \.auth.accessTokenLifetime, "Access-token lifetime (60–86400)."),
        Variable("REFRESH_REUSE_GRACE_SECONDS", String(Int(Configuration().auth.sessions.refreshGrace)),
                 "A rotated refresh token reused within this gets the same pair.") { reader, configuration in
            if let seconds = try reader.integer("REFRESH_REUSE_GRACE_SECONDS", in: 0...300) { configuration.auth.sessions.refreshGrace = TimeInterval(seconds) }
        },
        Variable("SESSION_MAX_LIFETIME_SECONDS", "(none)", "Sessions end this long after sign-in.") { reader, configuration in
            configuration.auth.sessions.limits.maxLifetime = try reader.integer("SESSION_MAX_LIFETIME_SECONDS", in: 60...(10 * 365 * 86_400)).map(TimeInterval.init)
        },
        Variable("SESSION_MAX_INACTIVITY_SECONDS", "(none)", "Sessions end after this long without a refresh.") { reader, configuration in
            configuration.auth.sessions.limits.maxInactivity = try reader.integer("SESSION_MAX_INACTIVITY_SECONDS", in: 60...(10 * 365 * 86_400)).map(TimeInterval.init)
        },
        .integer("PASSWORD_HASH_ITERATIONS", in: 10_000...10_000_000, \.auth.passwordIterations,
                 "PBKDF2-SHA256 iterations for new hashes (10000–10000000)."),
        .integer("PASSWORD_HASH_THREADS", in: 1...ProcessInfo.processInfo.activeProcessorCount, \.auth.passwordHashThreads,
                 "Threads running the password KDF at once (at least 1, at most the cores).", default: "cores/2"),
        .integer("PASSWORD_HASH_QUEUE", in: 0...10_000, \.auth.passwordHashQueue, "Password checks that may wait for a KDF thread; more answer 503 busy."),
        .rate("RATE_LIMIT_ANONYMOUS_PER_HOUR", per: 3600, \.auth.anonymousSignUps, "Anonymous sign-ups per client address per hour."),
        .rate("RATE_LIMIT_TOKEN_PER_5_MINUTES", per: 300, \.auth.tokenRequests, "Token and sign-up calls per client address per 5 minutes."),
        .rate("RATE_LIMIT_FAILED_PASSWORD_PER_15_MINUTES", per: 900, \.auth.failedPasswordSignIns,
              "Failed password checks per email per 15 minutes (sign-in, upgrade, merge)."),
        .rate("RATE_LIMIT_FAILED_PASSWORD_PER_ADDRESS_PER_15_MINUTES", per: 900, \.auth.failedPasswordsPerAddress,
              "Failed password checks per client address per 15 minutes."),
        Variable("REVOCATION_MAX_AGE_MS", String(Configuration().auth.revocationMaxAge.components.seconds * 1000),
                 "While the last read of sign-outs made elsewhere is older than this, tokens may read but not write (503).") { reader, configuration in
            if let milliseconds = try reader.integer("REVOCATION_MAX_AGE_MS", in: 500...600_000) { configuration.auth.revocationMaxAge = .milliseconds(milliseconds) }
        },
        .list("TRUSTED_PROXIES", \.auth.trustedProxies, "Comma-separated proxy addresses whose X-Forwarded-For is believed.") {
            ListeningSocket.isAddress($0) ? nil : "'\($0)' is not an IP address"
        },
        .list("GOOGLE_CLIENT_IDS", \.auth.googleClientIDs, "Comma-separated Google client ids; unset disables Google sign-in."),
        Variable("GOOGLE_JWKS", "(Google)", "Google key set: https URL or file path.") { reader, configuration in
            if let source = try reader.string("GOOGLE_JWKS") { configuration.auth.googleJWKS = JWKSSource(source) }
        },
        .list("APPLE_CLIENT_IDS", \.auth.appleClientIDs, "Comma-separated Apple client ids; unset disables Apple sign-in."),
        Variable("APPLE_JWKS", "(Apple)", "Apple key set: https URL or file path.") { reader, configuration in
            if let source = try reader.string("APPLE_JWKS") { configuration.auth.appleJWKS = JWKSSource(source) }
        },
    ]
}
