/// An error reported by PostgreSQL or by the driver, classified by SQLSTATE so callers can
/// react to the few cases that matter (a duplicate, a missing parent, a lost connection)
/// without parsing messages.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The class of failure. A struct over a private enum so new codes can be added
    /// without breaking exhaustive switches in callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case uniqueViolation, foreignKeyViolation, checkViolation, notNullViolation
            case serializationFailure, deadlockDetected, connectionFailure, poolClosed, poolTimeout, queryTimeout, clientGone
            case decoding, other
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// SQLSTATE 23505: a unique constraint or index refused the row.
        public static let uniqueViolation = Code(.uniqueViolation)
        /// SQLSTATE 23503: a foreign key refused the row.
        public static let foreignKeyViolation = Code(.foreignKeyViolation)
        /// SQLSTATE 23514: a `CHECK` constraint refused the row.
        public static let checkViolation = Code(.checkViolation)
        /// SQLSTATE 23502: a `NOT NULL` column received NULL.
        public static let notNullViolation = Code(.notNullViolation)
        /// SQLSTATE 40001: the transaction must be retried.
        public static let serializationFailure = Code(.serializationFailure)
        /// SQLSTATE 40P01: the transaction was chosen as a deadlock victim and may be retried.
        public static let deadlockDetected = Code(.deadlockDetected)
        /// The server cannot be reached, or the connection broke (SQLSTATE class 08, 57P0x).
        public static let connectionFailure = Code(.connectionFailure)
        /// The pool was closed before the work could run.
        public static let poolClosed = Code(.poolClosed)
        /// The work waited too long in the pool's queue and was not run.
        public static let poolTimeout = Code(.poolTimeout)
        /// The work waited in the pool's queue for a client that has since left, and was
        /// not run (``ClientPresence``).
        public static let clientGone = Code(.clientGone)
        /// The statement ran longer than the session's `statement_timeout` (57014).
        public static let queryTimeout = Code(.queryTimeout)
        /// A column value could not be decoded into the requested Swift type.
        public static let decoding = Code(.decoding)
        /// Any other SQLSTATE; see ``PostgresError/sqlState``.
        public static let other = Code(.other)

        /// Classifies a five-character SQLSTATE.
        public init(sqlState: String) {
            switch sqlState {
            case "23505": self = .uniqueViolation
            case "23503": self = .foreignKeyViolation
            case "23514": self = .checkViolation
            case "23502": self = .notNullViolation
            case "40001": self = .serializationFailure
            case "40P01": self = .deadlockDetected
            case "57014": self = .queryTimeout
            case "57P01", "57P02", "57P03": self = .connectionFailure
            default: self = sqlState.hasPrefix("08") ? .connectionFailure : .other
            }
        }

        /// The case name, e.g. `uniqueViolation`.
        public var description: String { base.rawValue }
    }

    /// The classified failure.
    public let code: Code
    /// The server's (or driver's) primary message.
    public let message: String
    /// The raw SQLSTATE when the server sent one.
    public let sqlState: String?
    /// The constraint that refused the row, for integrity violations.
    public let constraint: String?

    /// Creates an error; `sqlState` decides the code unless one is given.
    public init(code: Code? = nil, message: String, sqlState: String? = nil, constraint: String? = nil) {
        self.code = code ?? sqlState.map(Code.init(sqlState:)) ?? .other
        self.message = message
        self.sqlState = sqlState
        self.constraint = constraint
    }

    /// Whether running the whole transaction again may succeed.
    public var isTransient: Bool {
        code == .serializationFailure || code == .deadlockDetected
    }

    /// `code (SQLSTATE): message [constraint]`, for logs only.
    public var description: String {
        var text = "\(code)"
        if let sqlState { text += " (\(sqlState))" }
        text += ": \(message)"
        if let constraint { text += " [constraint \(constraint)]" }
        return text
    }
}
