import Foundation

/// A lease naming the one instance of a deployment that runs the background jobs. The
/// lease is kept by renewing it before it expires; an instance that dies stops renewing,
/// and another takes the lease once it has expired.
public protocol LeaderLease: Sendable {
    /// Takes the lease for `holder` if it is free or expired, or renews it if `holder` has
    /// it, for `duration` seconds from now by the lease's clock; `true` when `holder`
    /// holds it afterwards.
    func acquire(holder: UUID, duration: TimeInterval) async throws -> Bool
    /// Gives the lease up if `holder` has it, so another instance takes it at once.
    func release(holder: UUID) async throws
}
