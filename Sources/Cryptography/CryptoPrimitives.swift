import COpenSSL
import Foundation

/// Small OpenSSL primitives: secure random bytes, HMAC-SHA256, constant-time comparison.
public enum CryptoPrimitives {
    /// `count` bytes from OpenSSL's CSPRNG.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "RAND_bytes failed: the CSPRNG is unusable")
        return bytes
    }

    /// HMAC-SHA256 of `message` under `key`.
    public static func hmacSHA256(key: [UInt8], message: some DataProtocol) -> [UInt8] {
        let bytes = Array(message)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBuffer in
            bytes.withUnsafeBytes { messageBuffer in
                HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                     messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBuffer.count, &output, &length)
            }
        }
        precondition(result != nil && length == 32, "HMAC-SHA256 failed")
        return Array(output.prefix(32))
    }

    /// Whether `a` and `b` are equal, in time independent of where they differ.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { left in b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 } }
    }
}
