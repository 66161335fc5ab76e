import App
import Foundation

/// One record of an import file: its line number and its fields as text (JSON numbers
/// and booleans become their text; JSON `null` and empty CSV cells are absent).
struct ImportRecord {
    let line: Int
    let fields: [String: String]
}

/// A record that could not even be read (bad JSON line, wrong CSV column count).
struct UnreadableRecord: Error {
    let line: Int
    let reason: String
}

/// Reads JSON arrays, NDJSON and CSV (RFC 4180, header row) into records.
enum ImportFile {
    enum Format: String, CaseIterable {
        case json, ndjson, csv

        /// The format named by `--format`, else by the file's extension.
        static func of(path: String, explicit: String?) throws -> Format {
            if let explicit {
                guard let format = Format(rawValue: explicit) else { throw UsageError("--format must be json, ndjson or csv") }
                return format
            }
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "json": return .json
            case "ndjson", "jsonl": return .ndjson
            case "csv": return .csv
            default: throw UsageError("cannot tell the format of \(path); pass --format json|ndjson|csv")
            }
        }
    }

    /// Why a whole file is unusable.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Every record, or the reason each unreadable one failed, in file order.
    static func read(_ data: Data, format: Format) throws -> [Result<ImportRecord, UnreadableRecord>] {
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

/// A minimal RFC 4180 reader: quoted cells may hold commas, quotes (doubled) and newlines.
enum CSV {
    struct Row {
        let line: Int
        let cells: [String]
    }

    static func rows(_ text: String) -> [Row] {
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
