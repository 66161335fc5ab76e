import Domain
import Foundation
import HTTPServer

/// A validated row of an ingest call, and where it was in the body.
protocol IngestRow: Sendable {
    var line: Int { get }
}

extension InfluencerImport: IngestRow {}
extension PostImport: IngestRow {}

/// The rows of one call in body order: the valid ones (handed to the store) and the ones
/// answered before the store, with their outcomes.
struct IngestRows<Row: IngestRow> {
    private(set) var valid: [Row] = []
    /// Per row in body order: its line and, when it never reaches the store, its outcome.
    private(set) var entries: [(line: Int, early: ImportOutcome?)] = []

    mutating func append(valid row: Row) {
        valid.append(row)
        entries.append((row.line, nil))
    }

    mutating func append(rejected reason: String, line: Int) {
        entries.append((line, .rejected(reason)))
    }

    /// Takes out of the valid rows those `reason` names a reason for, as skipped.
    mutating func skip(_ reason: (Row) -> String?) {
        var kept: [Row] = []
        var skipped: [Int: String] = [:]
        for row in valid {
            if let why = reason(row) { skipped[row.line] = why } else { kept.append(row) }
        }
        guard !skipped.isEmpty else { return }
        valid = kept
        entries = entries.map { entry in entry.early == nil ? (entry.line, skipped[entry.line].map(ImportOutcome.skipped)) : entry }
    }
}

/// `{created, updated, unchanged, rejected, conflict, skipped, results: [{row, outcome,
/// reason?}]}`: each row of the body, in order; `row` is its element number (its line in
/// NDJSON).
struct IngestResults<Row: IngestRow>: JSONWritable {
    let rows: IngestRows<Row>
    let outcomes: [ImportOutcome]

    private func results() -> [(row: Int, outcome: String, reason: String?)] {
        var stored = outcomes.makeIterator()
        return rows.entries.map { entry in
            switch entry.early ?? stored.next() {
            case .inserted: (entry.line, "created", nil)
            case .updated: (entry.line, "updated", nil)
            case .unchanged: (entry.line, "unchanged", nil)
            case .rejected(let reason): (entry.line, "rejected", reason)
            case .conflict(let reason): (entry.line, "conflict", reason)
            case .skipped(let reason): (entry.line, "skipped", reason)
            case nil: (entry.line, "rejected", "not stored")
            }
        }
    }

    func write(to json: inout JSONWriter) {
        let results = results()
        json.object { json in
            let count = { (outcome: String) in results.count { $0.outcome == outcome } }
            json.field("created", count("created"))
            json.field("updated", count("updated"))
            json.field("unchanged", count("unchanged"))
            json.field("rejected", count("rejected"))
            json.field("conflict", count("conflict"))
            json.field("skipped", count("skipped"))
            json.field("results", results.map(RowResult.init))
        }
    }

    private struct RowResult: JSONWritable {
        let result: (row: Int, outcome: String, reason: String?)

        func write(to json: inout JSONWriter) {
            json.object { json in
                json.field("row", result.row)
                json.field("outcome", result.outcome)
                if let reason = result.reason { json.field("reason", reason) }
            }
        }
    }
}

/// The body of `POST /v1/ingest/posts/known`.
struct KnownPostsBody: JSONRequestBody {
    let instagramPostIDs: [String]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case instagramPostIDs = "instagram_post_ids"
    }
}

/// `{known: [...]}`: the ids asked about that a stored post came from, in the order asked.
struct KnownPostsResponse: JSONWritable {
    let known: [String]

    func write(to json: inout JSONWriter) {
        json.object { json in json.field("known", known) }
    }
}

/// `{data: [{username}], next_after}`.
struct UsernamesResponse: JSONWritable {
    let usernames: [String]
    let nextAfter: String?

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("data", usernames.map(Username.init))
            json.field("next_after", nextAfter)
        }
    }

    private struct Username: JSONWritable {
        let username: String
        func write(to json: inout JSONWriter) {
            json.object { json in json.field("username", username) }
        }
    }
}

/// The body of `POST /v1/ingest/influencer-requests/claim` (optional).
struct ClaimBody: JSONRequestBody {
    var limit = 10
    var leaseSeconds = 900

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        limit = try container.decodeIfPresent(Int.self, forKey: .limit) ?? limit
        leaseSeconds = try container.decodeIfPresent(Int.self, forKey: .leaseSeconds) ?? leaseSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case limit
        case leaseSeconds = "lease_seconds"
    }
}

/// `{data: [{id, username, attempts, created_at}]}`: claimed requests, each to be answered
/// with an outcome before its lease ends (else it is claimable again).
struct ClaimedRequests: JSONWritable {
    let requests: [InfluencerRequest]

    func write(to json: inout JSONWriter) {
        json.object { json in json.field("data", requests.map(InfluencerRequestResponse.init)) }
    }
}

/// What a lookup of a claimed request found, as the automation reports it:
/// `{"result": "found", "profile": {...}}`, `{"result": "not_found"}` or
/// `{"result": "lookup_failed"}`. The profile is the scraper's as mapped; null and empty
/// fields are read as absent (that is what a mapping node writes for a missing value).
enum LookupReport {
    static func parse(_ body: Data) throws -> LookupResult {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw APIError.invalidBody("the request body must be a JSON object with result: found, not_found or lookup_failed")
        }
        switch object["result"] as? String {
        case "not_found": return .notFound
        case "lookup_failed": return .failed
        case "found":
            guard let profile = object["profile"] as? [String: Any] else {
                throw APIError.invalidBody("profile is required when result is found", field: "profile")
            }
            return .found(try Self.profile(profile))
        default:
            throw APIError.invalidBody("result must be found, not_found or lookup_failed", field: "result")
        }
    }

    private static func profile(_ raw: [String: Any]) throws -> InstagramProfile {
        let fields = raw.mapValues(JSONValue.init)
        func text(_ name: String) throws -> String? {
            switch fields[name] {
            case nil, .null: return nil
            case .string(let value): return value.isEmpty ? nil : value
            default: throw APIError.invalidBody("profile.\(name) must be a string", field: "profile.\(name)")
            }
        }
        let followers: Int
        switch fields["followers_count"] {
        case .integer(let count) where (0...Int(Int32.max)).contains(count): followers = count
        case nil, .null: followers = 0
        default: throw APIError.invalidBody("profile.followers_count must be an integer from 0 to 2147483647", field: "profile.followers_count")
        }
        let isPrivate: Bool
        switch fields["is_private"] {
        case .boolean(let flag): isPrivate = flag
        case nil, .null: isPrivate = false
        default: throw APIError.invalidBody("profile.is_private must be true or false", field: "profile.is_private")
        }
        return InstagramProfile(username: try text("username") ?? "", fullName: try text("full_name"), biography: try text("biography"),
                                profilePicURL: try text("profile_pic_url"), followersCount: followers, externalURL: try text("external_url"),
                                isPrivate: isPrivate, instagramID: try text("instagram_id"), externalURLTitle: try text("external_url_title"))
    }
}
