import Foundation

/// Refuses parameters libpq cannot pass whole: it takes them as C strings, so a NUL byte
/// would end one early and the statement would run with a shorter value than the
/// caller's (a `text` cannot hold NUL; PostgreSQL answers 22021 to one in a literal).
func refuseNULBytes(_ texts: [String?]) throws {
    for text in texts {
        if let text, text.utf8.contains(0) {
            throw PostgresError(message: "a text parameter holds a NUL byte, which PostgreSQL text cannot hold", sqlState: "22021")
        }
    }
}

/// Calls `body` with C strings for `strings`, `nil` entries passed as NULL pointers.
func withOptionalCStringArray<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { $0.map { UnsafePointer(strdup($0)!) } }
    defer { pointers.forEach { $0.map { free(UnsafeMutablePointer(mutating: $0)) } } }
    return body(pointers)
}
