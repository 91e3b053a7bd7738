import Foundation
internal import COpenSSL

/// Owns one `EVP_PKEY` and frees it in `deinit`.
///
/// `@unchecked Sendable`: the key is never mutated after construction, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used for signing/verifying from several threads at once (each operation gets its
/// own `EVP_MD_CTX`); reference counting on it is atomic.
final class PKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The algorithm this key serves, or an `invalidKey` error for anything but P-256 or RSA ≥ 2048.
    func signatureAlgorithm() throws -> SignatureAlgorithm {
        if EVP_PKEY_is_a(pointer, "EC") == 1 {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            let status = name.withUnsafeMutableBufferPointer {
                EVP_PKEY_get_group_name(pointer, $0.baseAddress, $0.count, &length)
            }
            guard status == 1 else { throw CryptoError.openSSL(.invalidKey, "EVP_PKEY_get_group_name") }
            let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard group == "prime256v1" || group == "P-256" || group == "secp256r1" else {
                throw CryptoError(.invalidKey, "EC key on curve \(group); ES256 needs P-256")
            }
            return .es256
        }
        if EVP_PKEY_is_a(pointer, "RSA") == 1 {
            let bits = EVP_PKEY_get_bits(pointer)
            guard bits >= 2048 else { throw CryptoError(.invalidKey, "RSA key of \(bits) bits; at least 2048 required") }
            return .rs256
        }
        throw CryptoError(.invalidKey, "key type is neither EC P-256 nor RSA")
    }

    /// Loads the first private key of a PEM text (PKCS#8, PKCS#1 RSA or SEC1 EC). Encrypted keys are
    /// refused rather than prompting for a passphrase.
    static func privateKey(pem: String) throws -> PKey {
        try withMemoryBIO(Array(pem.utf8)) { bio in
            ERR_clear_error()
            guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
                throw CryptoError.openSSL(.invalidKey, "PEM_read_bio_PrivateKey")
            }
            return PKey(taking: key)
        }
    }

    /// Loads a DER private key (PKCS#8 or traditional); trailing bytes are refused.
    static func privateKey(der: [UInt8]) throws -> PKey {
        try parseDER(der, what: "d2i_AutoPrivateKey") { pointer, length in d2i_AutoPrivateKey(nil, &pointer, length) }
    }

    /// Loads a SubjectPublicKeyInfo PEM ("BEGIN PUBLIC KEY").
    static func publicKey(pem: String) throws -> PKey {
        try withMemoryBIO(Array(pem.utf8)) { bio in
            ERR_clear_error()
            guard let key = PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in 0 }, nil) else {
                throw CryptoError.openSSL(.invalidKey, "PEM_read_bio_PUBKEY")
            }
            return PKey(taking: key)
        }
    }

    /// Loads a DER SubjectPublicKeyInfo; trailing bytes are refused.
    static func publicKey(der: [UInt8]) throws -> PKey {
        try parseDER(der, what: "d2i_PUBKEY") { pointer, length in d2i_PUBKEY(nil, &pointer, length) }
    }

    /// The DER SubjectPublicKeyInfo of this key (public part only).
    func publicKeyDER() throws -> [UInt8] {
        ERR_clear_error()
        let length = i2d_PUBKEY(pointer, nil)
        guard length > 0 else { throw CryptoError.openSSL(.invalidKey, "i2d_PUBKEY") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL(.invalidKey, "i2d_PUBKEY") }
        return der
    }

    private static func parseDER(
        _ der: [UInt8], what: String,
        _ parse: (inout UnsafePointer<UInt8>?, Int) -> OpaquePointer?
    ) throws -> PKey {
        guard !der.isEmpty, der.count <= Int(Int32.max) else { throw CryptoError(.invalidKey, "empty or oversized DER key") }
        return try der.withUnsafeBufferPointer { buffer in
            ERR_clear_error()
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = parse(&cursor, buffer.count) else { throw CryptoError.openSSL(.invalidKey, what) }
            let result = PKey(taking: key)
            guard let end = cursor, let start = buffer.baseAddress, end - start == buffer.count else {
                throw CryptoError(.invalidKey, "DER key has trailing bytes")
            }
            return result
        }
    }
}

/// Runs `body` with a read-only memory BIO over `bytes`, freeing it afterwards.
func withMemoryBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
    guard bytes.count <= Int(Int32.max) else { throw CryptoError(.malformedEncoding, "input too large") }
    return try bytes.withUnsafeBytes { buffer in
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
            throw CryptoError.openSSL("BIO_new_mem_buf")
        }
        defer { BIO_free(bio) }
        return try body(bio)
    }
}
