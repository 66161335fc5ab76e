/// HTTP header fields in arrival order, looked up case-insensitively.
public struct HTTPHeaders: Sendable, Sequence, Equatable {
    private var fields: [(name: String, value: String)] = []

    /// The same fields in the same order (names as written).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Creates headers from `(name, value)` pairs.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Every value of `name`, in arrival order (repeated lines of a list-valued field).
    public func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with one holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lowered }
        fields.append((name, value))
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// Iterates fields as `(name, value)`.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}
