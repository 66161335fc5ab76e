import COpenSSL
import Domain
import Foundation
import Workers

/// PBKDF2-HMAC-SHA256 password hashes in the form
/// `$pbkdf2-sha256$i=<iterations>$<salt>$<digest>` (salt and digest base64url).
///
/// The default of 600,000 iterations is OWASP's 2023 recommendation for PBKDF2-SHA256. The
/// iteration count is stored with each hash, so raising it later still verifies old hashes.
/// The KDF takes a few hundred milliseconds of CPU (0.37 s here at 600,000), so it runs on
/// ``BoundedWorkers``, never on the cooperative pool: a storm of sign-ins gets `busy`
/// instead of taking every core.
public struct PBKDF2PasswordHasher: PasswordHasher {
    /// OWASP's recommendation for PBKDF2-HMAC-SHA256.
    public static let recommendedIterations = 600_000
    private let iterations: Int
    private let workers: BoundedWorkers
    public let decoyHash: String

    /// Creates a hasher that hashes with `iterations` rounds on `workers` (by default one
    /// thread and an unbounded queue, for commands).
    public init(iterations: Int = PBKDF2PasswordHasher.recommendedIterations,
                workers: BoundedWorkers = BoundedWorkers(name: "pbkdf2", threads: 1, queueLimit: .max)) {
        self.iterations = iterations
        self.workers = workers
        // Random salt and digest: verifying runs the full KDF and matches nothing.
        decoyHash = Self.format(iterations: iterations, salt: CryptoPrimitives.randomBytes(16), digest: CryptoPrimitives.randomBytes(32))
    }

    public func hash(_ password: String) async throws -> String {
        let salt = CryptoPrimitives.randomBytes(16)
        let iterations = iterations
        let digest = try await workers.run { Self.derive(password, salt: salt, iterations: iterations) }
        return Self.format(iterations: iterations, salt: salt, digest: digest)
    }

    private static func format(iterations: Int, salt: [UInt8], digest: [UInt8]) -> String {
        "$pbkdf2-sha256$i=\(iterations)$\(Base64URL.encode(salt))$\(Base64URL.encode(digest))"
    }

    public func verify(_ password: String, against hash: String) async throws -> Bool {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "pbkdf2-sha256", parts[2].hasPrefix("i="),
              let iterations = Int(parts[2].dropFirst(2)), (1...10_000_000).contains(iterations),
              let salt = Base64URL.decode(parts[3]), let expected = Base64URL.decode(parts[4]), expected.count == 32
        else { return false }
        let digest = try await workers.run { Self.derive(password, salt: Array(salt), iterations: iterations) }
        return CryptoPrimitives.constantTimeEquals(digest, Array(expected))
    }

    private static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        let passwordBytes = Array(password.utf8)
        let ok = passwordBytes.withUnsafeBufferPointer { passwordBuffer in
            passwordBuffer.withMemoryRebound(to: CChar.self) { passwordChars in
                PKCS5_PBKDF2_HMAC(passwordChars.baseAddress, Int32(passwordChars.count), salt, Int32(salt.count),
                                  Int32(iterations), EVP_sha256(), 32, &output)
            }
        }
        precondition(ok == 1, "PKCS5_PBKDF2_HMAC failed")
        return output
    }
}
