import Foundation

/// What a post carries from its Instagram original, next to the offer itself.
public struct PostDetails: Sendable, Equatable {
    /// The Instagram post.
    public var postURL: String?
    /// The post's caption. Read on single-post answers only: a page of 20 captions of a
    /// few hundred characters each would triple a feed page a phone downloads.
    public var caption: String?
    /// Hashtags, normalised (see ``PostRules/hashtags(_:)``), in the order given.
    public var hashtags: [String]
    /// Instagram's kind of post as its source reports it (`Image`, `Video`, `Sidecar`, ...).
    public var postType: String?
    /// The Instagram post it came from (Instagram's media id), when imported or ingested.
    public var instagramPostID: String?
    /// When it was posted on Instagram, when its source says (else when it was stored).
    public var postedAt: Date?

    public init(postURL: String? = nil, caption: String? = nil, hashtags: [String] = [], postType: String? = nil,
                instagramPostID: String? = nil, postedAt: Date? = nil) {
        self.postURL = postURL
        self.caption = caption
        self.hashtags = hashtags
        self.postType = postType
        self.instagramPostID = instagramPostID
        self.postedAt = postedAt
    }
}

extension PostRules {
    /// Most hashtags a post keeps (Instagram's own limit).
    public static let maximumHashtags = 30

    /// Hashtags as stored: a leading `#` dropped, lower-cased (Instagram's tags are
    /// case-insensitive), 1–100 of `A-Z a-z 0-9 _` and Hangul (syllables and jamo) each,
    /// duplicates dropped keeping the first, at most ``maximumHashtags``. The character
    /// class is the contract's pattern as written: "any letter" reads differently in
    /// Swift, JSON Schema's ECMA regexes and Python (whose `\w` counts `²` as a digit).
    /// ASCII letters are folded as they are read.
    public static func hashtags(_ raw: [String]) throws -> [String] {
        var tags: [String] = []
        for text in raw {
            let tag = try hashtag(text)
            if !tags.contains(tag) { tags.append(tag) }
        }
        guard tags.count <= maximumHashtags else {
            throw DomainError.invalid(field: "hashtags", message: "a post has at most \(maximumHashtags) hashtags")
        }
        return tags
    }

    /// One hashtag, normalised as in ``hashtags(_:)``.
    public static func hashtag(_ raw: String, field: String = "hashtags") throws -> String {
        let tag = raw.hasPrefix("#") ? raw.unicodeScalars.dropFirst() : raw.unicodeScalars[...]
        guard (1...100).contains(tag.count), tag.allSatisfy(isTagCharacter) else {
            throw DomainError.invalid(field: field, message: "a hashtag is 1 to 100 of A-Z, a-z, 0-9, _ and Hangul, after an optional #")
        }
        var folded = String.UnicodeScalarView()
        folded.append(contentsOf: tag.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 })
        return String(folded)
    }

    /// `[A-Za-z0-9_가-힣ㄱ-ㅎㅏ-ㅣ]`.
    private static func isTagCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0xAC00...0xD7A3, 0x3131...0x314E, 0x314F...0x3163: true
        default: false
        }
    }

    /// Hashtags written as text, as a CSV cell holds them: `#a #b`, `a, b`.
    public static func hashtags(text: String) throws -> [String] {
        try hashtags(text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init))
    }

    /// Every detail checked: the post URL as other URLs, the caption up to 2,200 code points
    /// (Instagram's limit; line breaks allowed, other control characters not), the post
    /// type a short word.
    public static func validated(_ details: PostDetails) throws -> PostDetails {
        var details = details
        details.postURL = try details.postURL.map { try ProfileRules.url($0, field: "post_url") }
        details.caption = try details.caption.map(caption)
        details.hashtags = try hashtags(details.hashtags)
        details.postType = try details.postType.map(postType)
        details.instagramPostID = try details.instagramPostID.map(instagramPostID)
        return details
    }

    /// Instagram's media ids are digits (`3512345678901234567`); shortcodes and
    /// `<media>_<user>` forms are taken too: 1–64 of A-Z, a-z, 0-9, `_` and `-`.
    public static func instagramPostID(_ raw: String) throws -> String {
        guard (1...64).contains(raw.utf8.count),
              raw.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 || $0 == 45 }) else {
            throw DomainError.invalid(field: "instagram_post_id", message: "instagram_post_id must be 1 to 64 of A-Z, a-z, 0-9, '_' and '-'")
        }
        return raw
    }

    static func caption(_ raw: String) throws -> String {
        guard raw.unicodeScalars.count <= 2200,
              !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\r" && $0 != "\t" }) else {
            throw DomainError.invalid(field: "caption", message: "caption must be at most 2200 characters without control characters other than line breaks and tabs")
        }
        return raw
    }

    static func postType(_ raw: String) throws -> String {
        guard (1...20).contains(raw.utf8.count), raw.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || $0 == 95 }) else {
            throw DomainError.invalid(field: "post_type", message: "post_type must be 1 to 20 of A-Z, a-z and _")
        }
        return raw
    }
}
