import Foundation
import HTTPServer

/// A submitted console form (`application/x-www-form-urlencoded`), its fields in order.
struct ConsoleForm: Sendable {
    private(set) var fields: [(name: String, value: String)] = []

    /// The fields of `body`; a body that is not a form has none.
    init(_ body: Data) {
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            fields.append((name, parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""))
        }
    }

    /// The last value of `name`, trimmed; `nil` when absent or empty.
    subscript(name: String) -> String? {
        guard let value = fields.last(where: { $0.name == name })?.value.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            return nil
        }
        return value
    }

    /// Every value of `name` (checkboxes).
    func all(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// `+` as a space, `%XX` as its byte; `nil` for malformed escapes or bytes that are not UTF-8.
    private static func decode(_ bytes: Data.SubSequence) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard bytes.distance(from: index, to: bytes.endIndex) > 2, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}

/// The request's cookies by name (the first of a repeated name).
enum Cookies {
    static func value(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(of: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}
