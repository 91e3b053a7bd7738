import Foundation
internal import COpenSSL

/// A private key for ES256 (P-256) or RS256 (RSA ≥ 2048 bits).
///
/// `@unchecked Sendable`: immutable after init; see `PKey` for why concurrent use is safe.
public final class SigningKey: @unchecked Sendable {
    /// The algorithm this key signs with, derived from the key type.
    public let algorithm: SignatureAlgorithm
    let key: PKey

    init(key: PKey) throws {
        self.key = key
        self.algorithm = try key.signatureAlgorithm()
    }

    /// Loads a PEM private key: PKCS#8 ("BEGIN PRIVATE KEY", e.g. an App Store `.p8` file),
    /// PKCS#1 ("BEGIN RSA PRIVATE KEY") or SEC1 ("BEGIN EC PRIVATE KEY").
    /// - Throws: `CryptoError.invalidKey` if unparsable, encrypted, or not P-256 / RSA ≥ 2048.
    public convenience init(pem: String) throws {
        try self.init(key: PKey.privateKey(pem: pem))
    }

    /// Loads a DER private key (PKCS#8 or traditional).
    /// - Throws: `CryptoError.invalidKey` if unparsable or not P-256 / RSA ≥ 2048.
    public convenience init(der: [UInt8]) throws {
        try self.init(key: PKey.privateKey(der: der))
    }

    /// Generates a fresh P-256 key.
    /// - Throws: `CryptoError.openSSLFailure` if key generation fails.
    public static func generateES256() throws -> SigningKey {
        ERR_clear_error()
        guard let pointer = tollgate_ec_p256_generate() else { throw CryptoError.openSSL("EVP_EC_gen") }
        return try SigningKey(key: PKey(taking: pointer))
    }

    /// The matching public key.
    /// - Throws: `CryptoError.invalidKey` if the public part cannot be extracted.
    public func verificationKey() throws -> VerificationKey {
        try VerificationKey(der: key.publicKeyDER())
    }

    /// Signs `data`: ES256 returns 64 bytes r‖s, RS256 the PKCS#1 v1.5 signature (deterministic).
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL fails to sign.
    public func sign(_ data: some ContiguousBytes) throws -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSignInit")
        }
        let signature: [UInt8] = try withBytes(data) { input in
            let bytes = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = 0
            guard EVP_DigestSign(context, nil, &length, bytes, input.count) == 1 else {
                throw CryptoError.openSSL("EVP_DigestSign")
            }
            var output = [UInt8](repeating: 0, count: length)
            let status = output.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, bytes, input.count)
            }
            guard status == 1 else { throw CryptoError.openSSL("EVP_DigestSign") }
            return Array(output.prefix(length))
        }
        switch algorithm {
        case .rs256: return signature
        case .es256: return try ECDSASignature.raw(fromDER: signature)
        }
    }
}
