import Foundation

/// The image formats uploads accept, decided by a file's first bytes (its magic number),
/// never by the name or type a client declares.
public enum MediaKind: String, Sendable, CaseIterable {
    case jpeg, png, heic, webp

    /// The `Content-Type` it is served with.
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .webp: "image/webp"
        }
    }

    /// The file name extension of stored files.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .heic: "heic"
        case .webp: "webp"
        }
    }

    /// HEIF brands of HEIC images (ISO/IEC 23008-12): still images and sequences.
    private static let heicBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"]

    /// The kind `head` (a file's first bytes, 12 at least) starts as, or `nil`.
    public init?(sniffing head: [UInt8]) {
        func ascii(_ range: Range<Int>) -> String? {
            range.upperBound <= head.count ? String(decoding: head[range], as: UTF8.self) : nil
        }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" {
            self = .webp
        } else if ascii(4..<8) == "ftyp", let brand = ascii(8..<12), Self.heicBrands.contains(brand) {
            self = .heic
        } else {
            return nil
        }
    }
}

/// Pixel dimensions read from an image's first bytes, when its format states them there:
/// PNG's IHDR, JPEG's first start-of-frame, WebP's VP8/VP8L/VP8X header. HEIC keeps them
/// in a box that may lie anywhere: not read.
public struct ImageSize: Sendable, Equatable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The size stated in `head` for `kind`, or `nil`.
    public init?(_ kind: MediaKind, head: [UInt8]) {
        func big(_ offset: Int, _ count: Int) -> Int? {
            guard offset + count <= head.count else { return nil }
            return head[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        func little(_ offset: Int, _ count: Int) -> Int? {
            guard offset + count <= head.count else { return nil }
            return head[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        var size: (Int, Int)?
        switch kind {
        case .png:
            if let width = big(16, 4), let height = big(20, 4) { size = (width, height) }
        case .jpeg:
            size = Self.jpegFrame(head)
        case .webp:
            switch String(decoding: head.dropFirst(12).prefix(4), as: UTF8.self) {
            case "VP8 ":
                if let width = little(26, 2), let height = little(28, 2) { size = (width & 0x3FFF, height & 0x3FFF) }
            case "VP8L":
                if let bits = little(21, 4) { size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1) }
            case "VP8X":
                if let width = little(24, 3), let height = little(27, 3) { size = (width + 1, height + 1) }
            default: break
            }
        case .heic:
            break
        }
        guard let (width, height) = size, width > 0, height > 0 else { return nil }
        self.init(width: width, height: height)
    }

    /// Walks JPEG segments to the first SOF marker (C0–CF but C4, C8, CC).
    private static func jpegFrame(_ bytes: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 9 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if (0xD0...0xD9).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                let width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
                return (width, height)
            }
            guard length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }
}

/// A stored upload.
public struct StoredMedia: Sendable, Equatable {
    /// The file's name in the store: its SHA-256 in hex and its extension.
    public let name: String
    public let kind: MediaKind
    public let bytes: Int
    public let size: ImageSize?

    public init(name: String, kind: MediaKind, bytes: Int, size: ImageSize?) {
        self.name = name
        self.kind = kind
        self.bytes = bytes
        self.size = size
    }

    /// Whether `name` is a name the store gives (64 hex digits, a dot, a known extension):
    /// anything else under `/media/` is not looked up at all.
    public static func isValidName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].utf8.count == 64 && parts[0].utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
            && MediaKind.allCases.contains { $0.fileExtension == parts[1] }
    }
}
