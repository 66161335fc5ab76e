import Foundation

/// A value that writes itself as JSON. Response bodies are written straight into bytes:
/// `JSONEncoder` spent more CPU on a feed page than the rest of the request together
/// (boxing every value, sorting keys, a dictionary per object).
public protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

/// Appends JSON to a byte buffer. Objects and arrays are written by closures; commas are
/// placed automatically. Keys are static ASCII names; string values are escaped as
/// RFC 8259 requires (quote, backslash and control characters), everything else (Korean
/// text included) is copied as UTF-8.
public struct JSONWriter {
    // Every member is @inlinable: the product's wire types live in another module, and
    // unspecialised generic calls across it cost the feed page ~5 % of its rps (1,746 ->
    // 1,662 rps, sort=latest, side by side) when the writer moved into HTTPServer.
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var needsComma = false

    /// The JSON written so far.
    public var bytes: [UInt8] { storage }

    @inlinable public init(capacity: Int = 512) {
        storage.reserveCapacity(capacity)
    }

    /// The storage of `value`.
    @inlinable public static func encode(_ value: some JSONWritable, capacity: Int = 512) -> Data {
        var json = JSONWriter(capacity: capacity)
        value.write(to: &json)
        return Data(json.bytes)
    }

    /// `{…}` with the fields `body` writes.
    @inlinable public mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        storage.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        storage.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[…]` of `elements`.
    @inlinable public mutating func array<Elements: Sequence>(_ elements: Elements) where Elements.Element: JSONWritable {
        separate()
        storage.append(UInt8(ascii: "["))
        needsComma = false
        for element in elements { element.write(to: &self) }
        storage.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// `"name": value` inside an object.
    @inlinable public mutating func field(_ name: StaticString, _ value: some JSONWritable) {
        separate()
        storage.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { storage.append(contentsOf: $0) }
        storage.append(UInt8(ascii: "\""))
        storage.append(UInt8(ascii: ":"))
        needsComma = false
        value.write(to: &self)
    }

    /// `"name": value` for a name known only at run time.
    @inlinable public mutating func field(dynamic name: String, _ value: some JSONWritable) {
        string(name)
        storage.append(UInt8(ascii: ":"))
        needsComma = false
        value.write(to: &self)
    }

    @inlinable public mutating func string(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { appendEscaped($0) }
        needsComma = true
    }

    /// A value whose storage `append` writes and promises need no escaping (ASCII without
    /// quotes, backslashes or control characters, such as a timestamp), in quotes unless
    /// `quoted` is false (a number).
    @inlinable public mutating func ascii(quoted: Bool = true, _ append: (inout [UInt8]) -> Void) {
        separate()
        if quoted { storage.append(UInt8(ascii: "\"")) }
        append(&storage)
        if quoted { storage.append(UInt8(ascii: "\"")) }
        needsComma = true
    }

    @inlinable public mutating func integer(_ value: Int) {
        separate()
        if value < 0 { storage.append(UInt8(ascii: "-")) }
        // The magnitude as UInt also covers Int.min.
        var magnitude = value.magnitude
        let start = storage.count
        repeat {
            storage.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        storage[start...].reverse()
        needsComma = true
    }

    @inlinable public mutating func boolean(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    @inlinable public mutating func null() {
        raw("null")
    }

    @inlinable mutating func raw(_ literal: StaticString) {
        separate()
        literal.withUTF8Buffer { storage.append(contentsOf: $0) }
        needsComma = true
    }

    @inlinable mutating func separate() {
        if needsComma { storage.append(UInt8(ascii: ",")) }
    }

    @inlinable mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        storage.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            runStart = index + 1
            storage.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): storage.append(byte)
            case 0x0A: storage.append(UInt8(ascii: "n"))
            case 0x0D: storage.append(UInt8(ascii: "r"))
            case 0x09: storage.append(UInt8(ascii: "t"))
            case 0x08: storage.append(UInt8(ascii: "b"))
            case 0x0C: storage.append(UInt8(ascii: "f"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                storage.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        storage.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<text.count]))
        storage.append(UInt8(ascii: "\""))
    }
}

extension String: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.string(self) }
}

extension Int: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.integer(self) }
}

extension Bool: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.boolean(self) }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    /// The value, or `null`: absent values are explicit on the wire.
    @inlinable public func write(to json: inout JSONWriter) {
        if let value = self { value.write(to: &json) } else { json.null() }
    }
}

extension Array: JSONWritable where Element: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.array(self) }
}

extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    /// An object with the keys in sorted order (dynamic keys are escaped like values).
    @inlinable public func write(to json: inout JSONWriter) {
        json.object { json in
            for key in keys.sorted() { json.field(dynamic: key, self[key]!) }
        }
    }
}
