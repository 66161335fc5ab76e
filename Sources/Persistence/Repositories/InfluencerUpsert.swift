import Domain
import Foundation
import PostgresDriver

/// Writes one influencer's profile, the one way every door does (imports, the ingest API,
/// approved requests): by Instagram's account id when the profile has one, so a renamed
/// account keeps its influencer (its follows, its posts) and the rename moves the
/// username; else by username. Instagram's fields are replaced (a profile without a
/// biography clears it: the account has none now); the category is ours, so a row
/// without one keeps it. `last_synced_at` becomes now: the profile was read, which alone
/// is no change.
enum InfluencerUpsert {
    /// What the write did, and the influencer's id when it was written.
    struct Result {
        let outcome: ImportOutcome
        let id: Int?
    }

    static func write(_ profile: InstagramProfile, category: String?, _ connection: PostgresConnection) throws -> Result {
        let username = profile.username
        let byAccount = try profile.instagramID.flatMap { account in
            try connection.query("SELECT id FROM influencers WHERE instagram_id = \(account)").first.map { try $0.decode(0, as: Int.self) }
        }
        let byName = try connection.query("SELECT id, instagram_id FROM influencers WHERE username = \(username)").first.map {
            (id: try $0.decode(0, as: Int.self), account: try $0.decode(1, as: String?.self))
        }
        let target: Int
        switch (byAccount, byName) {
        case (let account?, let name?) where name.id != account:
            return Result(outcome: .rejected("username \(username) is influencer \(name.id)'s, and Instagram account \(profile.instagramID!) is "
                                             + "influencer \(account)'s: merge or rename them first"), id: nil)
        case (let account?, _):
            target = account
        case (nil, let name?):
            if let stored = name.account, let sent = profile.instagramID, stored != sent {
                return Result(outcome: .rejected("username \(username) belongs to Instagram account \(stored) (influencer \(name.id)), which has "
                                                 + "since been renamed: sync that influencer first"), id: nil)
            }
            target = name.id
        case (nil, nil):
            let id: Int = try connection.query("""
                INSERT INTO influencers (username, full_name, profile_pic_url, external_url, biography, followers_count, category_id,
                                         instagram_id, external_url_title, last_synced_at)
                VALUES (\(username), \(profile.fullName), \(profile.profilePicURL), \(profile.externalURL), \(profile.biography),
                        \(profile.followersCount), \(category), \(profile.instagramID), \(profile.externalURLTitle), now())
                RETURNING id
                """).single().decode(0)
            return Result(outcome: .inserted, id: id)
        }
        let changed: Bool = try connection.query("""
            WITH old AS (SELECT * FROM influencers WHERE id = \(target) FOR UPDATE)
            UPDATE influencers i SET username = \(username), full_name = \(profile.fullName), profile_pic_url = \(profile.profilePicURL),
                external_url = \(profile.externalURL), biography = \(profile.biography), followers_count = \(profile.followersCount),
                category_id = COALESCE(\(category), old.category_id), instagram_id = COALESCE(\(profile.instagramID), old.instagram_id),
                external_url_title = \(profile.externalURLTitle), last_synced_at = now()
            FROM old WHERE i.id = old.id
            RETURNING (old.username, old.full_name, old.profile_pic_url, old.external_url, old.biography, old.followers_count, old.category_id,
                       old.instagram_id, old.external_url_title)
                      IS DISTINCT FROM (i.username, i.full_name, i.profile_pic_url, i.external_url, i.biography, i.followers_count, i.category_id,
                                        i.instagram_id, i.external_url_title)
            """).single().decode(0)
        return Result(outcome: changed ? .updated : .unchanged, id: target)
    }
}
