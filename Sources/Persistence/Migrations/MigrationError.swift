/// Why migrations refused to run. Each description is one line an operator can act on.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The migrations directory could not be listed.
    case directoryUnreadable(String)
    /// No `migrations/` directory was found near the executable and `MIGRATIONS_DIR` is unset.
    case directoryNotFound(String)
    /// A `.sql` file does not follow `NNNN_lowercase_name.sql`.
    case badFileName(String)
    /// Two files share a version number.
    case duplicateVersion(Int, String, String)
    /// An applied migration's file changed after it ran.
    case checksumMismatch(version: Int, fileName: String)
    /// The database has a version that no file on disk provides.
    case unknownAppliedVersion(Int)
    /// A file's version is below the newest applied one but was never applied.
    case notAPrefix(fileName: String, newestApplied: Int)

    /// One line naming the problem and what to do.
    public var description: String {
        switch self {
        case .directoryUnreadable(let path):
            return "cannot read migrations directory \(path)"
        case .directoryNotFound(let executable):
            return "no migrations/ directory found beside \(executable) or its parents; set MIGRATIONS_DIR"
        case .badFileName(let name):
            return "migration file \(name) must be named NNNN_lowercase_name.sql"
        case .duplicateVersion(let version, let first, let second):
            return "migrations \(first) and \(second) share version \(version)"
        case .checksumMismatch(let version, let fileName):
            return "migration \(fileName) (version \(version)) was edited after it was applied; restore the file and add a new migration instead"
        case .unknownAppliedVersion(let version):
            return "the database has migration version \(version), which is not in migrations/; is this binary older than the database?"
        case .notAPrefix(let fileName, let newestApplied):
            return "migration \(fileName) is older than the newest applied version \(newestApplied) but was never applied; renumber it after \(newestApplied)"
        }
    }
}
