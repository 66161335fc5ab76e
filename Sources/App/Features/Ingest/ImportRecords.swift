import Foundation
import HTTPServer

/// One record of an import file or an ingest call: its line (or element) number and its
/// fields as text (JSON numbers and booleans become their text; JSON `null` and empty CSV
/// cells are absent).
public struct ImportRecord: Sendable {
    public let line: Int
    public let fields: [String: String]
}

/// A record that could not even be read (bad JSON line, wrong CSV column count).
public struct UnreadableRecord: Error, Sendable {
    public let line: Int
    public let reason: String
}

/// Reads JSON arrays, NDJSON and CSV (RFC 4180, header row) into records: the files of
/// `market09 import` and the bodies of the ingest API.
public enum ImportFile {
    /// The three formats.
    public enum Format: String, CaseIterable, Sendable {
        case json, ndjson, csv
    }

    /// Why a whole file is unusable.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Every record, or the reason each unreadable one failed, in file order.
    public static func read(_ data: Data, format: Format) throws -> [Result<ImportRecord, UnreadableRecord>] {
        // A binary file read as text made a few nonsense rows, rejected or not, and an exit 0.
        guard !data.contains(0), String(validatingUTF8: data) != nil else {
            throw Malformed(description: "the file is not UTF-8 text (a binary file? imports read JSON, NDJSON or CSV)")
        }
        switch format {
        case .json:
            guard let array = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
                throw Malformed(description: "the file is not a JSON array of objects")
            }
            return array.enumerated().map { index, element in
                guard let object = element as? [String: Any] else { return .failure(UnreadableRecord(line: index + 1, reason: "element is not an object")) }
                return .success(ImportRecord(line: index + 1, fields: text(object)))
            }
        case .ndjson:
            var records: [Result<ImportRecord, UnreadableRecord>] = []
            for (index, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                    records.append(.failure(UnreadableRecord(line: index + 1, reason: "line is not a JSON object")))
                    continue
                }
                records.append(.success(ImportRecord(line: index + 1, fields: text(object))))
            }
            return records
        case .csv:
            let rows = CSV.rows(String(decoding: data, as: UTF8.self))
            if let line = CSV.unclosedQuote(String(decoding: data, as: UTF8.self)) {
                throw Malformed(description: "line \(line): a quoted field is never closed (a \" missing?); everything after it would be one field")
            }
            guard let header = rows.first else { throw Malformed(description: "the CSV file has no header row") }
            let names = header.cells.map { $0.trimmingCharacters(in: .whitespaces) }
            return rows.dropFirst().compactMap { row in
                if row.cells.count == 1 && row.cells[0].isEmpty { return nil }
                guard row.cells.count == names.count else {
                    return .failure(UnreadableRecord(line: row.line, reason: "expected \(names.count) columns, found \(row.cells.count)"))
                }
                var fields: [String: String] = [:]
                for (name, cell) in zip(names, row.cells) where !cell.isEmpty { fields[name] = cell }
                return .success(ImportRecord(line: row.line, fields: fields))
            }
        }
    }

    private static func text(_ object: [String: Any]) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in object {
            switch value {
            case is NSNull: continue
            case let string as String: fields[key] = string
            case let number as NSNumber: fields[key] = number.stringValue
            // A list of texts (hashtags as an array) reads as the text a CSV cell holds:
            // its items separated by spaces. An item holding a space fails validation there.
            case let list as [Any] where list.allSatisfy({ $0 is String }): fields[key] = list.map { "\($0)" }.joined(separator: " ")
            default: fields[key] = String(describing: value)
            }
        }
        return fields
    }
}

extension String {
    /// Whether `data` is valid UTF-8.
    init?(validatingUTF8 data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        self = text
    }
}

/// A minimal RFC 4180 reader: quoted cells may hold commas, quotes (doubled) and newlines.
public enum CSV {
    /// The line of a quoted field that never closes, if any.
    public static func unclosedQuote(_ text: String) -> Int? {
        var inQuotes = false, line = 1, opened = 0
        var previousQuote = false
        for scalar in text.unicodeScalars {
            if scalar == "\"" {
                if inQuotes { inQuotes = false; previousQuote = true; continue }
                // `""` inside quotes: the first closed them, this one opens them again.
                if !previousQuote { opened = line }
                inQuotes = true
            } else if scalar == "\n" {
                line += 1
            }
            previousQuote = false
        }
        return inQuotes ? opened : nil
    }

    /// A row and the line it starts on.
    public struct Row: Sendable {
        public let line: Int
        public let cells: [String]
    }

    /// Every row of `text`.
    public static func rows(_ text: String) -> [Row] {
        var rows: [Row] = []
        var cells: [String] = []
        var cell = ""
        var inQuotes = false
        var line = 1
        var rowLine = 1
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if inQuotes {
                if scalar == "\"" {
                    if scalars.first == "\"" { cell.unicodeScalars.append("\""); scalars.removeFirst() } else { inQuotes = false }
                } else {
                    if scalar == "\n" { line += 1 }
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": inQuotes = true
            case ",": cells.append(cell); cell = ""
            case "\r": continue
            case "\n":
                cells.append(cell)
                rows.append(Row(line: rowLine, cells: cells))
                cells = []
                cell = ""
                line += 1
                rowLine = line
            default: cell.unicodeScalars.append(scalar)
            }
        }
        if !cell.isEmpty || !cells.isEmpty { cells.append(cell); rows.append(Row(line: rowLine, cells: cells)) }
        return rows
    }
}
