import Domain
import Foundation
import HTTPServer

/// The ingest API's stores and limits (`/v1/ingest`, for the automation that fills the feed).
public struct IngestSettings: Sendable {
    /// Service API keys.
    public var keys: any ServiceKeyRepository
    /// Where rows go.
    public var content: any ContentIngest
    /// Calls per key per minute; more get 429 `rate_limited`.
    public var requestsPerMinute: Int
    /// What makes a looked-up profile an influencer (the same rules as the server's own lookup).
    public var rules: VerificationRules

    public init(keys: any ServiceKeyRepository, content: any ContentIngest, requestsPerMinute: Int = 120,
                rules: VerificationRules = VerificationRules()) {
        self.keys = keys
        self.content = content
        self.requestsPerMinute = requestsPerMinute
        self.rules = rules
    }

    /// Rows per call. A posts row is at most ~8 KB (a 2,200-character caption in Korean is
    /// 6.6 KB), so a full call fits the body limit; one call merges in one or two statements.
    public static let maxRows = 1_000
    /// The largest rows body.
    public static let maxBodyBytes = 8 << 20
    /// Instagram post ids per `posts/known` call.
    public static let maxKnownIDs = 1_000
}
