import Cryptography
import Domain
import Foundation
import Persistence
import Synchronization

/// A real PBKDF2 hasher (at test cost) that counts how often a password was checked, so
/// tests can assert how many guesses reached the KDF without timing anything.
public final class CountingPasswordHasher: PasswordHasher {
    private let real: PBKDF2PasswordHasher
    private let checks = Atomic<Int>(0)

    /// Creates the hasher at `iterations` rounds.
    public init(iterations: Int = 1_000) {
        real = PBKDF2PasswordHasher(iterations: iterations)
    }

    /// Password checks so far.
    public var verifications: Int { checks.load(ordering: .sequentiallyConsistent) }

    public func hash(_ password: String) async throws -> String { try await real.hash(password) }

    public var decoyHash: String { real.decoyHash }

    public func verify(_ password: String, against hash: String) async throws -> Bool {
        checks.add(1, ordering: .sequentiallyConsistent)
        return try await real.verify(password, against: hash)
    }
}
