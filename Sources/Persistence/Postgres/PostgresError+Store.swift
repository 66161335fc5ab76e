import Domain
import PostgresDriver

/// The driver's failures as the use cases see a store's: busy, gone, timed out, unreachable.
extension PostgresError: StoreError {
    public var unavailable: StoreUnavailable? {
        switch code {
        case .poolTimeout: .busy
        case .clientGone: .clientGone
        case .queryTimeout: .timedOut
        case .connectionFailure, .poolClosed: .unreachable
        default: nil
        }
    }

    public var refusedValue: String? {
        sqlState == "22021" ? "text values cannot hold NUL bytes (\\u0000)" : nil
    }
}

extension PostgresPool: ReadinessProbe {
    /// A trivial query through the pool.
    public func check() async throws { try await ping() }
}
