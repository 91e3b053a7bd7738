import Foundation
internal import COpenSSL

/// AES-256-GCM with a random 96-bit nonce and a 128-bit tag.
///
/// A sealed box is `nonce (12) ‖ ciphertext ‖ tag (16)`.
public enum AESGCM {
    /// Required key length in bytes.
    public static let keyByteCount = 32
    static let nonceByteCount = 12
    static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext` (and `associatedData`, authenticated only).
    /// - Throws: `CryptoError.invalidParameter` for a key not 32 bytes, `.randomFailure` / `.openSSLFailure`.
    public static func seal(
        _ plaintext: some ContiguousBytes, key: some ContiguousBytes,
        associatedData: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        let nonce = try SecureRandom.bytes(count: nonceByteCount)
        let context = try Context(key: key, nonce: nonce, encrypt: true)
        try context.addAssociatedData(associatedData)
        var output = nonce
        try output.append(contentsOf: context.update(plaintext))
        try context.finish()
        try output.append(contentsOf: context.tag())
        return output
    }

    /// Checks the tag and decrypts a sealed box produced by `seal`.
    /// - Throws: `CryptoError.authenticationFailed` if the box is short or was altered, or the key or
    ///   associated data differ; `.invalidParameter` for a key not 32 bytes.
    public static func open(
        _ sealed: some ContiguousBytes, key: some ContiguousBytes,
        associatedData: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        let box = sealed.withUnsafeBytes { Array($0) }
        guard box.count >= nonceByteCount + tagByteCount else {
            throw CryptoError(.authenticationFailed, "sealed box is \(box.count) bytes; at least 28 required")
        }
        let nonce = Array(box[0..<nonceByteCount])
        let ciphertext = Array(box[nonceByteCount..<(box.count - tagByteCount)])
        let tag = Array(box[(box.count - tagByteCount)...])
        let context = try Context(key: key, nonce: nonce, encrypt: false)
        try context.addAssociatedData(associatedData)
        let plaintext = try context.update(ciphertext)
        try context.setExpectedTag(tag)
        do {
            try context.finish()
        } catch {
            throw CryptoError(.authenticationFailed, "AES-GCM tag does not match")
        }
        return plaintext
    }

    /// Owns one `EVP_CIPHER_CTX` for a single seal or open.
    private final class Context {
        let pointer: OpaquePointer
        let encrypt: Bool

        init(key: some ContiguousBytes, nonce: [UInt8], encrypt: Bool) throws {
            let keyLength = key.withUnsafeBytes { $0.count }
            guard keyLength == AESGCM.keyByteCount else {
                throw CryptoError(.invalidParameter, "AES-256-GCM key is \(keyLength) bytes; 32 required")
            }
            ERR_clear_error()
            guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
            self.pointer = pointer
            self.encrypt = encrypt
            let status = key.withUnsafeBytes { keyBytes in
                nonce.withUnsafeBufferPointer { iv in
                    EVP_CipherInit_ex(
                        pointer, EVP_aes_256_gcm(), nil,
                        keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), iv.baseAddress,
                        encrypt ? 1 : 0)
                }
            }
            guard status == 1 else { throw CryptoError.openSSL("EVP_CipherInit_ex") }
        }

        deinit { EVP_CIPHER_CTX_free(pointer) }

        func addAssociatedData(_ data: some ContiguousBytes) throws {
            try data.withUnsafeBytes { aad in
                guard aad.count > 0 else { return }
                guard aad.count <= Int(Int32.max) else { throw CryptoError(.invalidParameter, "associated data too large") }
                var written: Int32 = 0
                guard
                    EVP_CipherUpdate(
                        pointer, nil, &written, aad.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        Int32(aad.count)) == 1
                else {
                    throw CryptoError.openSSL("EVP_CipherUpdate(aad)")
                }
            }
        }

        func update(_ data: some ContiguousBytes) throws -> [UInt8] {
            try data.withUnsafeBytes { input in
                guard input.count > 0 else { return [] }
                guard input.count <= Int(Int32.max) - 32 else { throw CryptoError(.invalidParameter, "message too large") }
                var output = [UInt8](repeating: 0, count: input.count)
                var written: Int32 = 0
                let status = output.withUnsafeMutableBufferPointer {
                    EVP_CipherUpdate(
                        pointer, $0.baseAddress, &written,
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count))
                }
                guard status == 1 else { throw CryptoError.openSSL("EVP_CipherUpdate") }
                return Array(output.prefix(Int(written)))
            }
        }

        func setExpectedTag(_ tag: [UInt8]) throws {
            var tag = tag
            let status = tag.withUnsafeMutableBytes {
                EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_GCM_SET_TAG, Int32($0.count), $0.baseAddress)
            }
            guard status == 1 else { throw CryptoError.openSSL("EVP_CTRL_GCM_SET_TAG") }
        }

        func finish() throws {
            var scratch = [UInt8](repeating: 0, count: 32)
            var written: Int32 = 0
            let status = scratch.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(pointer, $0.baseAddress, &written) }
            guard status == 1 else { throw CryptoError.openSSL(.authenticationFailed, "EVP_CipherFinal_ex") }
        }

        func tag() throws -> [UInt8] {
            var tag = [UInt8](repeating: 0, count: AESGCM.tagByteCount)
            let status = tag.withUnsafeMutableBytes {
                EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_GCM_GET_TAG, Int32($0.count), $0.baseAddress)
            }
            guard status == 1 else { throw CryptoError.openSSL("EVP_CTRL_GCM_GET_TAG") }
            return tag
        }
    }
}
