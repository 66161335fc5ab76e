import Foundation
import HTTPServer

/// A value of a YAML document, keys in document order.
indirect enum YAMLValue: Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case sequence([YAMLValue])
    case mapping([(key: String, value: YAMLValue)])

    static func == (lhs: YAMLValue, rhs: YAMLValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.sequence(a), .sequence(b)): a == b
        case let (.mapping(a), .mapping(b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }
}

/// Why a document is outside the subset ``YAMLDocument`` reads.
struct YAMLError: Error, CustomStringConvertible {
    let line: Int
    let reason: String
    var description: String { "line \(line): \(reason)" }
}

/// The block-style YAML our `openapi.yaml` is written in, read into ``YAMLValue``s so that
/// `GET /openapi.json` serves the same contract as `GET /openapi.yaml` from one source:
/// block mappings and sequences, single-line flow mappings and sequences, `|` literal
/// blocks, quoted and plain scalars, comments. Scalars resolve as YAML 1.1 (PyYAML) does
/// for what the file holds: `null`, `true`/`false`, integers, decimals; anything else is a
/// string. Anchors, aliases, tags and multi-document streams are refused, not misread. A
/// test compares the result with PyYAML's reading of the whole file.
struct YAMLDocument {
    private struct Line {
        let number: Int
        let indent: Int
        /// The text after the indentation, comment removed.
        let text: String
        /// The raw line, for literal blocks.
        let raw: Substring
    }

    private let lines: [Line]
    private var position = 0

    /// Parses `text`; throws on anything outside the subset.
    static func parse(_ text: String) throws -> YAMLValue {
        var document = YAMLDocument(text)
        guard let first = document.lines.first else { return .null }
        let value = try document.block(indent: first.indent)
        if document.position < document.lines.count {
            throw YAMLError(line: document.lines[document.position].number, reason: "unexpected indentation")
        }
        return value
    }

    private init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let indent = raw.prefix { $0 == " " }.count
            let content = Self.stripComment(raw.dropFirst(indent))
            return content.isEmpty ? Line(number: index + 1, indent: indent, text: "", raw: raw) : Line(number: index + 1, indent: indent, text: content, raw: raw)
        }
    }

    // MARK: - Blocks

    private mutating func block(indent: Int) throws -> YAMLValue {
        skipBlank()
        guard position < lines.count else { return .null }
        let line = lines[position]
        if line.text == "-" || line.text.hasPrefix("- ") { return try sequence(indent: line.indent) }
        return try mapping(indent: line.indent)
    }

    private mutating func sequence(indent: Int) throws -> YAMLValue {
        var items: [YAMLValue] = []
        while skipBlank(), position < lines.count, lines[position].indent == indent,
              lines[position].text == "-" || lines[position].text.hasPrefix("- ") {
            let line = lines[position]
            let rest = String(line.text.dropFirst(1).drop { $0 == " " })
            if rest.isEmpty {
                position += 1
                items.append(try nested(under: indent))
            } else if Self.splitKey(rest) != nil, !rest.hasPrefix("{"), !rest.hasPrefix("[") {
                // "- key: value": a mapping whose keys sit where "key" starts.
                let keyIndent = indent + (line.text.count - rest.count)
                items.append(try mapping(indent: keyIndent, firstLine: rest))
            } else {
                position += 1
                items.append(try scalarOrFlow(rest, line: line.number, indent: indent))
            }
        }
        return .sequence(items)
    }

    private mutating func mapping(indent: Int, firstLine: String? = nil) throws -> YAMLValue {
        var entries: [(key: String, value: YAMLValue)] = []
        var pending = firstLine
        while true {
            let text: String
            let number: Int
            if let first = pending {
                text = first
                number = lines[position].number
                pending = nil
            } else {
                guard skipBlank(), position < lines.count, lines[position].indent == indent else { break }
                text = lines[position].text
                number = lines[position].number
                if text.hasPrefix("- ") { break }
            }
            guard let (rawKey, rawValue) = Self.splitKey(text) else { throw YAMLError(line: number, reason: "expected key: value") }
            let key = try Self.keyText(rawKey, line: number)
            if entries.contains(where: { $0.key == key }) { throw YAMLError(line: number, reason: "duplicate key \(key)") }
            position += 1
            let value: YAMLValue
            if rawValue.isEmpty {
                value = try nested(under: indent, allowSameIndentSequence: true)
            } else if rawValue == "|" || rawValue == "|-" || rawValue == "|+" {
                value = .string(literalBlock(under: indent, chomping: rawValue.last!))
            } else if rawValue.hasPrefix(">") || rawValue.hasPrefix("&") || rawValue.hasPrefix("*") || rawValue.hasPrefix("!") {
                throw YAMLError(line: number, reason: "folded blocks, anchors, aliases and tags are not read")
            } else {
                value = try scalarOrFlow(continued(rawValue, under: indent), line: number, indent: indent)
            }
            entries.append((key, value))
        }
        return .mapping(entries)
    }

    /// The block under a key or a dash: more indented lines, or (for a key) a sequence at
    /// the key's own indentation; nothing there is null.
    private mutating func nested(under indent: Int, allowSameIndentSequence: Bool = false) throws -> YAMLValue {
        skipBlank()
        guard position < lines.count else { return .null }
        let next = lines[position]
        if next.indent > indent { return try block(indent: next.indent) }
        if allowSameIndentSequence, next.indent == indent, next.text == "-" || next.text.hasPrefix("- ") { return try sequence(indent: indent) }
        return .null
    }

    /// A plain scalar or a flow collection that goes on over more indented lines, joined
    /// with spaces (a flow collection until its brackets close).
    private mutating func continued(_ value: String, under indent: Int) -> String {
        guard !value.hasPrefix("\""), !value.hasPrefix("'") else { return value }
        let flow = value.hasPrefix("{") || value.hasPrefix("[")
        var text = value
        while position < lines.count, !lines[position].text.isEmpty, lines[position].indent > indent, !flow || Self.depth(text) > 0 {
            text += " " + lines[position].text
            position += 1
        }
        return text
    }

    /// Open brackets minus closed ones, outside quotes.
    private static func depth(_ text: String) -> Int {
        var depth = 0
        scanOutsideQuotes(text) { _, _, level in
            depth = level
            return false
        }
        return depth
    }

    /// A `|` block: the lines indented past `indent`, less the first one's indentation.
    private mutating func literalBlock(under indent: Int, chomping: Character) -> String {
        var collected: [Substring] = []
        var blockIndent: Int?
        while position < lines.count {
            let line = lines[position]
            let rawIndent = line.raw.prefix { $0 == " " }.count
            let blank = line.raw.allSatisfy { $0 == " " }
            if !blank {
                if rawIndent <= indent { break }
                if blockIndent == nil { blockIndent = rawIndent }
                if rawIndent < blockIndent! { break }
            }
            collected.append(blank ? "" : line.raw.dropFirst(blockIndent!))
            position += 1
        }
        while collected.last?.isEmpty == true && chomping != "+" { collected.removeLast() }
        let body = collected.joined(separator: "\n")
        return chomping == "-" ? body : body + "\n"
    }

    @discardableResult
    private mutating func skipBlank() -> Bool {
        while position < lines.count, lines[position].text.isEmpty { position += 1 }
        return true
    }
}

extension YAMLValue: JSONWritable {
    func write(to json: inout JSONWriter) {
        switch self {
        case .null: json.null()
        case .bool(let value): json.boolean(value)
        case .int(let value): json.integer(value)
        case .double(let value): json.ascii(quoted: false) { $0.append(contentsOf: String(value).utf8) }
        case .string(let value): json.string(value)
        case .sequence(let items): json.array(items)
        case .mapping(let entries): json.object { json in for (key, value) in entries { json.field(dynamic: key, value) } }
        }
    }
}
