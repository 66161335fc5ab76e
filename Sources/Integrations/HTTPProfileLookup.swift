import Domain
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``ProfileLookup`` through an HTTP service (an Instagram profile scraper behind a small
/// API of the operator's): `GET <url>?username=<name>` with `Authorization: Bearer
/// <token>`, answering
///
///     200 {"username": "...", "full_name": "...", "biography": "...", "profile_pic_url": "https://...",
///          "followers_count": 12345, "external_url": "https://..." | null, "is_private": false,
///          "instagram_id": "1234567890" (optional), "external_url_title": "..." (optional)}
///     404 when there is no such account
///
/// Anything else (another status, a body that does not parse, over 1 MB, no answer within
/// 10 s) is a lookup error, retried later.
public struct HTTPProfileLookup: ProfileLookup {
    private let url: URL
    private let token: String?

    public init(url: URL, token: String?) {
        self.url = url
        self.token = token
    }

    public func profile(username: String) async throws -> InstagramProfile? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw LookupError("bad lookup URL") }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "username", value: username)]
        guard let target = components.url else { throw LookupError("bad lookup URL") }
        var request = URLRequest(url: target)
        request.timeoutInterval = 10
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.data(for: request)
        switch (response as? HTTPURLResponse)?.statusCode {
        case 404: return nil
        case 200: break
        case let status: throw LookupError("lookup answered \(status.map(String.init) ?? "no status")")
        }
        guard data.count <= 1 << 20 else { throw LookupError("lookup answer over 1 MB") }
        let body = try JSONDecoder().decode(Body.self, from: data)
        return InstagramProfile(username: body.username ?? username, fullName: body.fullName, biography: body.biography,
                                profilePicURL: body.profilePicURL, followersCount: body.followersCount, externalURL: body.externalURL,
                                isPrivate: body.isPrivate ?? false, instagramID: body.instagramID, externalURLTitle: body.externalURLTitle)
    }

    private struct Body: Decodable {
        let username: String?
        let fullName: String?
        let biography: String?
        let profilePicURL: String?
        let followersCount: Int
        let externalURL: String?
        let isPrivate: Bool?
        let instagramID: String?
        let externalURLTitle: String?

        enum CodingKeys: String, CodingKey {
            case username, biography
            case fullName = "full_name", profilePicURL = "profile_pic_url", followersCount = "followers_count"
            case externalURL = "external_url", isPrivate = "is_private", instagramID = "instagram_id", externalURLTitle = "external_url_title"
        }
    }
}

/// The profile lookup failed (and will be retried).
public struct LookupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
