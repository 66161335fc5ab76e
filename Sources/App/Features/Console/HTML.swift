/// Markup whose every interpolated text is escaped: `"<td>\(caption)</td>"` as ``HTML``
/// turns a caption's `<script>` into text. Only another ``HTML`` value is inserted as
/// markup, so a page cannot show a string unescaped without saying so by type.
struct HTML: ExpressibleByStringInterpolation, Sendable {
    private(set) var text: String

    init(stringLiteral value: String) {
        text = value
    }

    init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
    }

    /// Markup joined from parts.
    init(joining parts: [HTML], separator: String = "") {
        text = parts.map(\.text).joined(separator: separator)
    }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Text: escaped.
        mutating func appendInterpolation(_ value: String) {
            text += HTML.escape(value)
        }

        /// Optional text: escaped, empty when `nil`.
        mutating func appendInterpolation(_ value: String?) {
            text += HTML.escape(value ?? "")
        }

        mutating func appendInterpolation(_ value: Int) {
            text += String(value)
        }

        /// Markup: as it is.
        mutating func appendInterpolation(_ value: HTML) {
            text += value.text
        }

        mutating func appendInterpolation(_ values: [HTML]) {
            for value in values { text += value.text }
        }
    }

    /// `&`, `<`, `>`, `"` and `'` as character references: safe in text and in quoted
    /// attribute values alike.
    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
