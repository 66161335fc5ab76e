import COpenSSL
import Foundation

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func digest(_ data: some DataProtocol) -> [UInt8] {
        let bytes = Array(data)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return Array(output.prefix(32))
    }

    /// The digest of `data` as 64 lowercase hex characters.
    public static func hex(_ data: some DataProtocol) -> String {
        hex(digest: digest(data))
    }

    static func hex(digest: [UInt8]) -> String {
        digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// A digest fed piece by piece (a file read in chunks). Not shared between threads:
    /// one owner updates it and takes the result.
    public struct Incremental: ~Copyable {
        private let context: OpaquePointer

        public init() {
            context = EVP_MD_CTX_new()
            precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(SHA-256) failed")
        }

        public mutating func update(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        }

        /// The digest as 64 lowercase hex characters.
        public consuming func finalHex() -> String {
            var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            precondition(EVP_DigestFinal_ex(context, &output, &length) == 1 && length == 32, "EVP_DigestFinal_ex failed")
            return SHA256.hex(digest: Array(output.prefix(32)))
        }

        deinit { EVP_MD_CTX_free(context) }
    }
}
