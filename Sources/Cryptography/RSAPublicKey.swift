import COpenSSL
import Foundation

/// An RSA public key from a JWK's modulus and exponent, for RS256 signature checks.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is created once in `init`, never mutated, and
/// freed in `deinit`; OpenSSL allows concurrent verification with one immutable key.
public final class RSAPublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// Builds the key; throws when OpenSSL rejects the parameters.
    public init(modulus: [UInt8], exponent: [UInt8]) throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw KeyError.openSSL("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let n = BN_bin2bn(modulus, Int32(modulus.count), nil)
        let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        // The builder keeps the key *pointers* until `to_param`: they must outlive it,
        // which a Swift string bridged for one call does not.
        let nName = strdup(OSSL_PKEY_PARAM_RSA_N), eName = strdup(OSSL_PKEY_PARAM_RSA_E)
        defer { BN_free(n); BN_free(e); free(nName); free(eName) }
        guard n != nil, e != nil,
              OSSL_PARAM_BLD_push_BN(builder, nName, n) == 1,
              OSSL_PARAM_BLD_push_BN(builder, eName, e) == 1,
              let parameters = OSSL_PARAM_BLD_to_param(builder)
        else { throw KeyError.openSSL("RSA parameters") }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw KeyError.openSSL("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        let selection = Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, parameters) == 1, let key else {
            throw Self.failure("EVP_PKEY_fromdata")
        }
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    /// OpenSSL refused to build the key.
    public enum KeyError: Error {
        /// The failing step and OpenSSL's reason.
        case openSSL(String)
    }

    private static func failure(_ step: String) -> KeyError {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(ERR_get_error(), &buffer, buffer.count)
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .openSSL("\(step): \(reason)")
    }
}
