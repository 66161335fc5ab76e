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
}

extension PostgresPool: ReadinessProbe {
    /// A trivial query through the pool.
    public func check() async throws { try await ping() }
}
