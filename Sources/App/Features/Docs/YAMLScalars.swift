import Foundation
import HTTPServer

/// Scalars, keys, comments and single-line flow collections of ``YAMLDocument``.
extension YAMLDocument {
    /// `text` without a trailing comment: a `#` at the start or after a space, outside quotes.
    static func stripComment(_ text: Substring) -> String {
        var quote: Character?
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"", previous == " " || previous == "{" || previous == "[" || previous == "," || previous == ":" {
                quote = character
            } else if character == "#", previous == " " {
                return String(text[..<index]).trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return String(text).trimmingCharacters(in: .whitespaces)
    }

    /// `key: value` split at the first `: ` (or a final `:`) outside quotes and brackets.
    static func splitKey(_ text: String) -> (key: String, value: String)? {
        var split: (key: String, value: String)?
        scanOutsideQuotes(text) { index, character, depth in
            guard character == ":", depth == 0 else { return false }
            let next = text.index(after: index)
            guard next == text.endIndex || text[next] == " " else { return false }
            split = (text[..<index].trimmingCharacters(in: .whitespaces), text[next...].trimmingCharacters(in: .whitespaces))
            return true
        }
        return split
    }

    /// Calls `visit` with each character outside quotes and the bracket depth after it,
    /// until `visit` returns `true`.
    static func scanOutsideQuotes(_ text: String, _ visit: (String.Index, Character, Int) -> Bool) {
        var quote: Character?
        var depth = 0
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"": quote = character; continue
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            default: break
            }
            if visit(index, character, depth) { return }
        }
    }

    /// A key's text (quoted or plain; every key is a string in JSON).
    static func keyText(_ raw: String, line: Int) throws -> String {
        switch try scalar(raw, line: line) {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .bool(let value): return value ? "true" : "false"
        default: throw YAMLError(line: line, reason: "unsupported key \(raw)")
        }
    }

    /// A flow collection (`{…}` or `[…]` on one line) or a scalar.
    func scalarOrFlow(_ text: String, line: Int, indent: Int) throws -> YAMLValue {
        guard text.hasPrefix("{") || text.hasPrefix("[") else { return try Self.scalar(text, line: line) }
        var reader = FlowReader(text: Array(text), line: line)
        let value = try reader.value()
        reader.skipSpaces()
        guard reader.atEnd else { throw YAMLError(line: line, reason: "text after a flow collection") }
        return value
    }

    /// A quoted or plain scalar, resolved as YAML 1.1 resolves what this file holds.
    static func scalar(_ text: String, line: Int) throws -> YAMLValue {
        if text.hasPrefix("'") {
            guard text.count >= 2, text.hasSuffix("'") else { throw YAMLError(line: line, reason: "unterminated quote") }
            return .string(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        if text.hasPrefix("\"") {
            guard text.count >= 2, text.hasSuffix("\""),
                  let decoded = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? String
            else { throw YAMLError(line: line, reason: "a double-quoted string outside JSON's escapes") }
            return .string(decoded)
        }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case "yes", "Yes", "no", "No", "on", "On", "off", "Off":
            throw YAMLError(line: line, reason: "\(text) is a boolean to YAML 1.1 readers and a string to 1.2 ones: quote it")
        default: break
        }
        if text.wholeMatch(of: /[-+]?(0|[1-9][0-9]*)/) != nil, let number = Int(text) { return .int(number) }
        if text.wholeMatch(of: /[-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?/) != nil, let number = Double(text) { return .double(number) }
        return .string(text)
    }
}

/// Reads one flow collection: `{ a: 1, b: [x, y] }`.
private struct FlowReader {
    let text: [Character]
    let line: Int
    var index = 0

    var atEnd: Bool { index >= text.count }

    mutating func skipSpaces() {
        while index < text.count, text[index] == " " { index += 1 }
    }

    mutating func value() throws -> YAMLValue {
        skipSpaces()
        guard index < text.count else { throw YAMLError(line: line, reason: "unfinished flow collection") }
        switch text[index] {
        case "{":
            let entries = try collection(closing: "}") { reader in
                let key = try reader.scalarText(stoppingAt: [":"])
                guard reader.index < reader.text.count, reader.text[reader.index] == ":" else { throw YAMLError(line: reader.line, reason: "expected : in a flow mapping") }
                reader.index += 1
                return (try YAMLDocument.keyText(key, line: reader.line), try reader.value())
            }
            return .mapping(entries.map { (key: $0.0 ?? "", value: $0.1) })
        case "[":
            return .sequence(try collection(closing: "]") { reader in (nil, try reader.value()) }.map(\.1))
        default: return try YAMLDocument.scalar(scalarText(stoppingAt: [",", "}", "]"]), line: line)
        }
    }

    private mutating func collection(closing: Character, entry: (inout FlowReader) throws -> (String?, YAMLValue)) throws -> [(String?, YAMLValue)] {
        index += 1
        var entries: [(String?, YAMLValue)] = []
        while true {
            skipSpaces()
            guard index < text.count else { throw YAMLError(line: line, reason: "unclosed flow collection") }
            if text[index] == closing { index += 1; return entries }
            entries.append(try entry(&self))
            skipSpaces()
            if index < text.count, text[index] == "," { index += 1 }
        }
    }

    /// A scalar's text up to one of `stops` (outside quotes), trimmed.
    private mutating func scalarText(stoppingAt stops: Set<Character>) throws -> String {
        skipSpaces()
        let start = index
        if index < text.count, text[index] == "'" || text[index] == "\"" {
            let quote = text[index]
            index += 1
            while index < text.count {
                if text[index] == quote {
                    if quote == "'", index + 1 < text.count, text[index + 1] == "'" { index += 2; continue }
                    break
                }
                if quote == "\"", text[index] == "\\" { index += 1 }
                index += 1
            }
            guard index < text.count else { throw YAMLError(line: line, reason: "unterminated quote") }
            index += 1
            return String(text[start..<index])
        }
        while index < text.count, !stops.contains(text[index]) { index += 1 }
        return String(text[start..<index]).trimmingCharacters(in: .whitespaces)
    }
}
