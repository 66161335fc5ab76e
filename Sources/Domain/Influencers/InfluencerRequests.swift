import Foundation

/// A request to add an influencer, as its requester and admins see it.
public struct InfluencerRequest: Sendable, Equatable {
    public let id: Int
    /// The normalised Instagram username.
    public let username: String
    public let status: Status
    /// Why it failed, when it did.
    public let reason: Failure?
    /// The influencer it became, once approved.
    public let influencerID: InfluencerID?
    /// Lookups tried so far.
    public let attempts: Int
    public let createdAt: Date

    public init(id: Int, username: String, status: Status, reason: Failure?, influencerID: InfluencerID?, attempts: Int, createdAt: Date) {
        self.id = id
        self.username = username
        self.status = status
        self.reason = reason
        self.influencerID = influencerID
        self.attempts = attempts
        self.createdAt = createdAt
    }

    public enum Status: String, Sendable, CaseIterable {
        /// Waiting for the lookup (or, without one, for an admin).
        case processing
        case approved
        case failed
    }

    public enum Failure: String, Error, Sendable, CaseIterable {
        case accountNotFound = "account_not_found"
        case privateAccount = "private_account"
        case insufficientFollowers = "insufficient_followers"
        case noExternalURL = "no_external_url"
        /// The lookup kept failing (after ``InfluencerVerification/maximumAttempts``).
        case lookupError = "lookup_error"
        /// An admin refused it.
        case rejected
        /// No Instagram account can have the name (spaces, punctuation): recorded and failed
        /// at once, where the app's current backend records it and fails it in the background.
        case invalidUsername = "invalid_username"
    }
}

/// A public Instagram profile as the lookup reports it.
public struct InstagramProfile: Sendable, Equatable {
    public var username: String
    public var fullName: String?
    public var biography: String?
    public var profilePicURL: String?
    public var followersCount: Int
    public var externalURL: String?
    public var isPrivate: Bool
    /// Instagram's id of the account (digits): it stays when the username changes.
    public var instagramID: String?
    /// The title Instagram shows for the profile's link.
    public var externalURLTitle: String?

    public init(username: String, fullName: String? = nil, biography: String? = nil, profilePicURL: String? = nil, followersCount: Int,
                externalURL: String? = nil, isPrivate: Bool = false, instagramID: String? = nil, externalURLTitle: String? = nil) {
        self.username = username
        self.fullName = fullName
        self.biography = biography
        self.profilePicURL = profilePicURL
        self.followersCount = followersCount
        self.externalURL = externalURL
        self.isPrivate = isPrivate
        self.instagramID = instagramID
        self.externalURLTitle = externalURLTitle
    }

    /// The profile with what the influencers table keeps: texts cut to its bounds and
    /// without control characters, and URLs that are not http(s) and ids that are not
    /// Instagram's dropped (the lookup is a service, not the database's judge).
    public var storable: InstagramProfile {
        func text(_ value: String?, _ limit: Int, multiline: Bool = false) -> String? {
            value.flatMap { try? TextRules.plain(String($0.unicodeScalars.prefix(limit)), field: "", multiline: multiline) }
        }
        var profile = self
        profile.fullName = text(fullName, 100)
        profile.biography = text(biography, 2000, multiline: true)
        profile.externalURLTitle = text(externalURLTitle, 200)
        profile.instagramID = instagramID.flatMap { try? InstagramUsername.accountID($0) }
        profile.profilePicURL = profilePicURL.flatMap { try? ProfileRules.url($0, field: "profile_pic_url") }
        profile.externalURL = externalURL.flatMap { try? ProfileRules.url($0, field: "external_url") }
        profile.followersCount = min(max(0, followersCount), Int(Int32.max))
        return profile
    }
}

/// Finds a public Instagram profile by username: `nil` when there is no such account;
/// throws when the lookup itself fails (then it is retried).
public protocol ProfileLookup: Sendable {
    func profile(username: String) async throws -> InstagramProfile?
}

/// What makes a profile an influencer here (configurable; the current backend's rules).
public struct VerificationRules: Sendable, Equatable {
    public var requirePublic = true
    public var minimumFollowers = 10_000
    public var requireExternalURL = true

    public init() {}

    /// The profile if it qualifies, else why not.
    public func verdict(_ profile: InstagramProfile?) -> Result<InstagramProfile, InfluencerRequest.Failure> {
        guard let profile else { return .failure(.accountNotFound) }
        if requirePublic && profile.isPrivate { return .failure(.privateAccount) }
        if profile.followersCount < minimumFollowers { return .failure(.insufficientFollowers) }
        if requireExternalURL && profile.storable.externalURL == nil { return .failure(.noExternalURL) }
        return .success(profile.storable)
    }
}

/// Instagram usernames (and account ids) as requests, imports and the ingest API carry them.
public enum InstagramUsername {
    /// Instagram's id of an account: 1–32 digits (the scraper's `id`).
    public static func accountID(_ raw: String, field: String = "instagram_id") throws -> String {
        guard (1...32).contains(raw.utf8.count), raw.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw DomainError.invalid(field: field, message: "\(field) must be Instagram's id of the account: 1 to 32 digits")
        }
        return raw
    }

    /// The name as the app's current backend keeps any registration: at most 100
    /// characters as sent, no control characters; a leading `@` dropped, trimmed (as
    /// JavaScript's `trim`), lower-cased, and something left.
    public static func asSent(_ raw: String) throws -> String {
        let invalid = DomainError.invalid(field: "instagram_username",
                                          message: "instagram_username must be at most 100 characters, without control characters, and not blank")
        guard raw.unicodeScalars.count <= 100,
              !raw.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else { throw invalid }
        let blank = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}"))
        var text = raw.trimmingCharacters(in: blank)
        if text.hasPrefix("@") { text.removeFirst() }
        text = text.trimmingCharacters(in: blank).lowercased()
        guard !text.isEmpty else { throw invalid }
        return text
    }

    /// A leading `@` dropped, trimmed, lower-cased; then 1–30 of `a-z 0-9 . _`, not starting
    /// or ending with a period, without two periods in a row (Instagram's own rules). The
    /// one username rule: requests, imports and the ingest API.
    public static func normalized(_ raw: String, field: String = "instagram_username") throws -> String {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("@") { text.removeFirst() }
        text = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard (1...30).contains(text.utf8.count),
              text.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 95 }),
              !text.hasPrefix("."), !text.hasSuffix("."), !text.contains("..") else {
            throw DomainError.invalid(field: field, message: "\(field) must be an Instagram username: 1 to 30 of a-z, 0-9, '.', '_'")
        }
        return text
    }
}
