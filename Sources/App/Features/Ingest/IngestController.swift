import Domain
import Foundation
import HTTPServer

/// `/v1/ingest`: the door of the automation that fills the feed (the n8n workflows that
/// wrote straight into the old database). Every route takes a service API key of scope
/// `ingest`, checked with the call's rate before a byte of the body is read.
struct IngestController: Sendable {
    let settings: IngestSettings
    let keys: ServiceKeyAuthenticator
    let counters: any RateLimitCounters
    let queue: InfluencerRequestQueue
    let categories: CategoryResolver
    let media: IngestMedia
    let now: @Sendable () -> Date
    let endpoints: Endpoints

    init(settings: IngestSettings, counters: any RateLimitCounters, requests: any InfluencerRequestRepository,
         categories: CategoryResolver, media: IngestMedia, endpoints: Endpoints, now: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.endpoints = endpoints
        self.media = media
        self.keys = ServiceKeyAuthenticator(keys: settings.keys, scope: .ingest, now: now)
        self.counters = counters
        self.queue = InfluencerRequestQueue(requests: requests, rules: settings.rules, now: now)
        self.categories = categories
        self.now = now
    }

    var routes: [Route] {
        [
            keyed("POST", "/ingest/influencers", maxBodyBytes: IngestSettings.maxBodyBytes) { request in
                // The sync's profiles qualify by the requests' rules (one rule): a private,
                // small or link-less account is skipped, as the original workflow skipped it.
                var rows = try await rows(request) { record, categories in try await ImportRows.influencer(record, categories: categories) }
                rows.skip { row in
                    if case .failure(let failure) = settings.rules.verdict(row.profile) { return failure.rawValue }
                    return nil
                }
                let outcomes = try await settings.content.influencers(rows.valid, atomic: false, batchSize: IngestSettings.maxRows)
                return .json(IngestResults(rows: rows, outcomes: outcomes))
            },
            keyed("POST", "/ingest/posts", maxBodyBytes: IngestSettings.maxBodyBytes) { request in
                let now = now()
                let rows = try await rows(request) { record, categories in try await ImportRows.post(record, categories: categories, now: now) }
                let outcomes = try await settings.content.posts(rows.valid, source: .ingest, atomic: false, batchSize: IngestSettings.maxRows)
                return .json(IngestResults(rows: rows, outcomes: outcomes))
            },
            keyed("POST", "/ingest/posts/known", maxBodyBytes: 128 << 10) { request in
                let body = try request.decodeBody(KnownPostsBody.self)
                guard body.instagramPostIDs.count <= IngestSettings.maxKnownIDs else {
                    throw APIError(status: 400, code: ErrorCodes.tooManyIDs, message: "Send at most \(IngestSettings.maxKnownIDs) instagram_post_ids per call.",
                                   field: "instagram_post_ids")
                }
                // An id no post can have (the stored ids keep PostRules' shape) is not known:
                // it is not asked about (a NUL byte would cut the query's text short).
                let storable = body.instagramPostIDs.filter { (try? PostRules.instagramPostID($0)) != nil }
                let known = try await settings.content.knownPosts(instagramPostIDs: storable)
                var seen = Set<String>()
                return .json(KnownPostsResponse(known: body.instagramPostIDs.filter { known.contains($0) && seen.insert($0).inserted }))
            },
            keyed("GET", "/ingest/influencers", maxBodyBytes: 0) { request in
                let limit = try request.queryInteger("limit", in: 1...1_000, default: 100)
                if let after = request.query["after"], after.unicodeScalars.count > 30 {
                    throw APIError.invalidParameter("after", "after must be a username (at most 30 characters): the previous page's next_after")
                }
                let usernames = try await settings.content.influencerUsernames(after: request.query["after"], limit: limit)
                return .json(UsernamesResponse(usernames: usernames, nextAfter: usernames.count == limit ? usernames.last : nil))
            },
            keyed("POST", "/ingest/influencer-requests/claim", maxBodyBytes: 16 << 10) { request in
                let body = request.body.isEmpty ? ClaimBody() : try request.decodeBody(ClaimBody.self)
                guard (1...50).contains(body.limit) else { throw APIError.invalidBody("limit must be from 1 to 50", field: "limit") }
                guard (30...86_400).contains(body.leaseSeconds) else {
                    throw APIError.invalidBody("lease_seconds must be from 30 to 86400", field: "lease_seconds")
                }
                let claimed = try await queue.claim(limit: body.limit, lease: TimeInterval(body.leaseSeconds))
                return .json(ClaimedRequests(requests: claimed))
            },
            keyed("POST", "/ingest/influencer-requests/{id}/outcome", maxBodyBytes: 64 << 10) { request in
                let id = try request.pathID()
                let result = try LookupReport.parse(request.body)
                guard let pending = try await queue.request(id: id) else {
                    throw DomainError.notFound("influencer_request")
                }
                return .json(InfluencerRequestResponse(request: try await queue.settle(pending, result)))
            },
            keyed("POST", "/ingest/media", maxBodyBytes: media.settings.maxUploadBytes, spooled: true,
                  admit: { [media] request in try await media.admit(request) }) { request in
                let stored = try await media.store(request)
                return .json(UploadResponse(url: media.url(of: stored), media: stored), status: 201)
            },
        ]
    }

    /// A route behind the key: the key and the call's rate are checked from the head, and
    /// the key once more by the handler (it may have been revoked while the body arrived).
    private func keyed(_ method: String, _ path: String, maxBodyBytes: Int, spooled: Bool = false,
                       admit: (@Sendable (HTTPRequest) async throws -> Void)? = nil,
                       _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) -> Route {
        endpoints.route(method, path) { [keys] request, _ in
            _ = try await keys.key(for: request, counting: true)
            return try await handler(request)
        }.receiving(Reception(maxBodyBytes: maxBodyBytes, spooled: spooled, admission: { [keys, counters, settings, now] request in
            let key = try await keys.key(for: request)
            if let wait = try await counters.take("ingest:\(key.id)", limit: settings.requestsPerMinute, window: 60, now: now()) {
                throw AuthError.rateLimited(retryAfterSeconds: wait)
            }
            try await admit?(request)
            return nil
        }))
    }

    /// The body's rows, each validated (or rejected with its reason), at most ``IngestSettings/maxRows``.
    private func rows<Row: IngestRow>(_ request: HTTPRequest,
                                      _ parse: (ImportRecord, CategoryResolver) async throws -> Row) async throws -> IngestRows<Row> {
        let records = try Self.records(request)
        guard records.count <= IngestSettings.maxRows else {
            throw APIError(status: 400, code: ErrorCodes.tooManyRows, message: "Send at most \(IngestSettings.maxRows) rows per call; this one has \(records.count).")
        }
        var rows = IngestRows<Row>()
        for record in records {
            do {
                rows.append(valid: try await parse(try record.get(), categories))
            } catch {
                let rejection = ImportRows.reject(record, error)
                rows.append(rejected: rejection.reason, line: rejection.line)
            }
        }
        return rows
    }

    /// The records of a JSON array, a single JSON object, or NDJSON (`application/x-ndjson`).
    private static func records(_ request: HTTPRequest) throws -> [Result<ImportRecord, UnreadableRecord>] {
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        do {
            if type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/ndjson") {
                return try ImportFile.read(request.body, format: .ndjson)
            }
            let first = request.body.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
            if first == UInt8(ascii: "{") { return try ImportFile.read(Data("[".utf8) + request.body + Data("]".utf8), format: .json) }
            return try ImportFile.read(request.body, format: .json)
        } catch is ImportFile.Malformed {
            throw APIError.invalidBody("send a JSON array of row objects, one object, or NDJSON with Content-Type: application/x-ndjson")
        }
    }
}
