/// A product category of group-buying posts, as the app shows it in its chips.
///
/// The identifier is a stable ASCII slug (`beauty`, `food`, …) used on the wire and in
/// storage; the name is the Korean label the app displays (and the raw value the existing
/// app sends).
public struct Category: Sendable, Hashable {
    /// Stable ASCII identifier, e.g. `beauty`.
    public let id: CategoryID
    /// Korean display name, e.g. `뷰티`.
    public let name: String

    public init(id: CategoryID, name: String) {
        self.id = id
        self.name = name
    }
}

/// The identifier of a ``Category``: a lowercase ASCII slug.
public struct CategoryID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The slug, e.g. `electronics`.
    public let rawValue: String

    /// Wraps a slug without validating it; storage and parsing validate.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The slug itself.
    public var description: String { rawValue }

    /// Orders identifiers by their slug.
    public static func < (lhs: CategoryID, rhs: CategoryID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
