import Cryptography
import Foundation
import Persistence
import Workers

/// A stand-in for Google or Apple: an RSA key made with the `openssl` command, its JWKS
/// written to a file, and RS256 ID tokens signed with `openssl dgst`. The server verifies
/// them with its production code path (JWKS file source).
public struct TestIdentityProvider: Sendable {
    /// The JWKS file to configure as `GOOGLE_JWKS` / `APPLE_JWKS`.
    public let jwksPath: String
    /// The key id in the JWKS.
    public let keyID: String
    private let keyPath: String
    private let directory: String

    /// Generates a 2048-bit key and its JWKS.
    public static func make() async throws -> TestIdentityProvider {
        let directory = "/tmp/m09idp-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyPath = directory + "/key.pem"
        try await openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyPath], directory: directory)
        let modulusLine = try await openssl(["rsa", "-in", keyPath, "-noout", "-modulus"], directory: directory)
        guard let hex = modulusLine.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw TestEnvironmentError("openssl printed no modulus: \(modulusLine)")
        }
        var modulus = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            modulus.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        let keyID = "test-" + UUID().uuidString.prefix(8).lowercased()
        let jwks: [String: Any] = ["keys": [["kty": "RSA", "kid": keyID, "use": "sig", "alg": "RS256", "n": Base64URL.encode(modulus), "e": "AQAB"]]]
        let jwksPath = directory + "/jwks.json"
        try JSONSerialization.data(withJSONObject: jwks).write(to: URL(fileURLWithPath: jwksPath))
        return TestIdentityProvider(jwksPath: jwksPath, keyID: keyID, keyPath: keyPath, directory: directory)
    }

    /// An ID token with the given claims, signed RS256 with this provider's key (or
    /// with header `kid` overridden).
    public func idToken(claims: [String: any Sendable], kid: String? = nil) async throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "kid": kid ?? keyID, "typ": "JWT"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let inputPath = directory + "/input-\(UUID().uuidString.prefix(8))"
        let signaturePath = inputPath + ".sig"
        try Data(signingInput.utf8).write(to: URL(fileURLWithPath: inputPath))
        try await Self.openssl(["dgst", "-sha256", "-sign", keyPath, "-out", signaturePath, inputPath], directory: directory)
        let signature = try Data(contentsOf: URL(fileURLWithPath: signaturePath))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Standard claims for `subject`, valid now for `audience`.
    public static func claims(issuer: String, audience: String, subject: String, email: String? = nil, nonce: String? = nil, now: Date = Date()) -> [String: any Sendable] {
        var claims: [String: any Sendable] = ["iss": issuer, "aud": audience, "sub": subject,
                                              "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 3600]
        if let email { claims["email"] = email }
        if let nonce { claims["nonce"] = SHA256.hex(Data(nonce.utf8)) }
        return claims
    }

    @discardableResult
    private static func openssl(_ arguments: [String], directory: String) async throws -> String {
        try await BlockingWork.run(name: "openssl") {
            let output = directory + "/openssl-\(UUID().uuidString.prefix(8)).log"
            let process = try ChildProcess(["/usr/bin/openssl"] + arguments, outputPath: output)
            let code = process.waitForExit()
            let text = process.output()
            guard code == 0 else { throw TestEnvironmentError("openssl \(arguments.first ?? "") failed (\(code)): \(text)") }
            return text
        }
    }
}
