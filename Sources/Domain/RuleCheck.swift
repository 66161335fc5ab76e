/// Rules checked one after another without stopping at the first broken one: an import
/// row is answered with every reason at once (fixing a row one rule per run was how
/// operators met them before), while the API still answers the first.
public struct RuleCheck: Sendable {
    /// The broken rules, in the order checked.
    public private(set) var failures: [DomainError] = []

    public init() {}

    /// `rule`'s value, or `nil` with its failure recorded.
    @discardableResult
    public mutating func run<Value>(_ rule: () throws -> Value) -> Value? {
        do {
            return try rule()
        } catch let error as DomainError {
            failures.append(error)
        } catch {
            failures.append(.invalid(field: nil, message: String(describing: error)))
        }
        return nil
    }

    /// Records a failure found elsewhere.
    public mutating func record(_ failure: DomainError) {
        failures.append(failure)
    }

    /// Throws the first failure, if any.
    public func throwFirst() throws {
        if let first = failures.first { throw first }
    }
}
