import Foundation

/// UUIDs to and from their 8-4-4-4-12 hex text without Foundation's `snprintf` and
/// `sscanf`: `uuidString` and `UUID(uuidString:)` through libc's format machinery were
/// 3 % of a `/v1/me` request's server CPU (perf), and a signed-in request
/// formats or parses a UUID four to six times (its token's `sub` and `sid`, its
/// statement's parameter, its row, its answer).
extension UUID {
    /// Lower-case text, as PostgreSQL and GoTrue write it.
    public var lowercasedText: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            withUnsafeBytes(of: uuid) { bytes in
                let digits: StaticString = "0123456789abcdef"
                let hex = digits.utf8Start
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    buffer[at] = hex[Int(bytes[index] >> 4)]
                    buffer[at + 1] = hex[Int(bytes[index] & 0x0F)]
                    at += 2
                }
            }
            return 36
        }
    }

    /// Parses 8-4-4-4-12 hex digits in either case; nil for anything else (as
    /// `UUID(uuidString:)`, which also takes nothing around them).
    public init?(text: some StringProtocol) {
        let parsed = text.utf8.withContiguousStorageIfAvailable(Self.parse) ?? Array(text.utf8).withUnsafeBufferPointer(Self.parse)
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }

    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-") else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var at = 0
            for index in 0..<16 {
                if at == 8 || at == 13 || at == 18 || at == 23 { at += 1 }
                guard let high = nibble(text[at]), let low = nibble(text[at + 1]) else { return false }
                out[index] = high << 4 | low
                at += 2
            }
            return true
        }
        return ok ? bytes : nil
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
