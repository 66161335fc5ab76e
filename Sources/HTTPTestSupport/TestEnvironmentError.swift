/// The test environment is not what the tests need; the message says how to fix it.
public struct TestEnvironmentError: Error, CustomStringConvertible {
    /// What is missing and how to provide it.
    public let description: String
    public init(_ description: String) { self.description = description }
}
