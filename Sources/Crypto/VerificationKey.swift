import Foundation
internal import COpenSSL

/// A public key for ES256 (P-256) or RS256 (RSA ≥ 2048 bits) signature verification.
///
/// `@unchecked Sendable`: immutable after init; see `PKey` for why concurrent use is safe.
public final class VerificationKey: @unchecked Sendable {
    /// The algorithm this key verifies, derived from the key type.
    public let algorithm: SignatureAlgorithm
    let key: PKey

    init(key: PKey) throws {
        self.key = key
        self.algorithm = try key.signatureAlgorithm()
    }

    /// Loads a PEM public key ("BEGIN PUBLIC KEY") or the key of a PEM certificate.
    /// - Throws: `CryptoError.invalidKey` if unparsable or not P-256 / RSA ≥ 2048.
    public convenience init(pem: String) throws {
        try self.init(key: Self.publicPKey(pem: pem))
    }

    /// A "PUBLIC KEY" block if there is one, else the key of the first "CERTIFICATE" block.
    private static func publicPKey(pem: String) throws -> PKey {
        do {
            return try PKey.publicKey(pem: pem)
        } catch let keyError {
            guard let certificate = try? Certificate(pem: pem) else { throw keyError }
            return try certificate.publicPKey()
        }
    }

    /// Loads a DER SubjectPublicKeyInfo.
    /// - Throws: `CryptoError.invalidKey` if unparsable or not P-256 / RSA ≥ 2048.
    public convenience init(der: [UInt8]) throws {
        try self.init(key: PKey.publicKey(der: der))
    }

    /// Checks `signature` over `data`. ES256 signatures must be exactly 64 bytes r‖s; RS256 ones
    /// exactly the modulus size.
    /// - Returns: `true` if valid, `false` if well-formed but not matching.
    /// - Throws: `CryptoError.malformedSignature` for a signature of the wrong shape.
    public func isValidSignature(_ signature: some ContiguousBytes, for data: some ContiguousBytes) throws -> Bool {
        let encoded: [UInt8]
        switch algorithm {
        case .es256:
            encoded = try signature.withUnsafeBytes { try ECDSASignature.der(fromRaw: $0) }
        case .rs256:
            let size = Int(EVP_PKEY_get_size(key.pointer))
            encoded = signature.withUnsafeBytes { Array($0) }
            guard encoded.count == size else {
                throw CryptoError(.malformedSignature, "RS256 signature is \(encoded.count) bytes; the key needs \(size)")
            }
        }
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw CryptoError.openSSL("EVP_DigestVerifyInit")
        }
        let status = withBytes(data) { input in
            encoded.withUnsafeBufferPointer { sig in
                EVP_DigestVerify(
                    context, sig.baseAddress, sig.count,
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
            }
        }
        // 1 is a valid signature; 0 a mismatch; anything else an error in checking. Only 1 passes.
        if status != 1 { ERR_clear_error() }
        return status == 1
    }
}
