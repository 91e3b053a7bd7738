import Foundation
internal import COpenSSL

/// Key derivation functions backed by OpenSSL (HKDF-SHA256 and scrypt through `EVP_KDF`,
/// PBKDF2-HMAC-SHA256 through `PKCS5_PBKDF2_HMAC`).
public enum KDF {
    /// HKDF-SHA256 (RFC 5869): extract with `salt`, expand with `info` to `outputByteCount` bytes.
    /// - Throws: `CryptoError.invalidParameter` for an output length outside 1...8160, `.openSSLFailure`.
    public static func hkdfSHA256(
        inputKeyMaterial: some ContiguousBytes, salt: some ContiguousBytes,
        info: some ContiguousBytes, outputByteCount: Int
    ) throws -> [UInt8] {
        guard (1...(255 * 32)).contains(outputByteCount) else {
            throw CryptoError(.invalidParameter, "HKDF output length \(outputByteCount) is outside 1...8160")
        }
        let context = try KDFContext(algorithm: "HKDF")
        var output = [UInt8](repeating: 0, count: outputByteCount)
        let status = withBytes(inputKeyMaterial) { ikm in
            withBytes(salt) { saltBytes in
                withBytes(info) { infoBytes in
                    output.withUnsafeMutableBufferPointer { out in
                        tollgate_hkdf_sha256_derive(
                            context.pointer,
                            ikm.baseAddress?.assumingMemoryBound(to: UInt8.self), ikm.count,
                            saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), saltBytes.count,
                            infoBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), infoBytes.count,
                            out.baseAddress, out.count)
                    }
                }
            }
        }
        guard status == 1 else { throw CryptoError.openSSL("EVP_KDF_derive(HKDF)") }
        return output
    }

    /// scrypt (RFC 7914) with cost `n` (a power of two > 1), block size `r` and parallelism `p`.
    /// - Throws: `CryptoError.invalidParameter` for out-of-range parameters, `.openSSLFailure`.
    public static func scrypt(
        password: some ContiguousBytes, salt: some ContiguousBytes,
        n: UInt64, r: UInt32, p: UInt32, outputByteCount: Int
    ) throws -> [UInt8] {
        guard n > 1, n & (n - 1) == 0, r > 0, p > 0, (1...1024).contains(outputByteCount) else {
            throw CryptoError(.invalidParameter, "scrypt parameters out of range (N=\(n), r=\(r), p=\(p), length=\(outputByteCount))")
        }
        let context = try KDFContext(algorithm: "SCRYPT")
        var output = [UInt8](repeating: 0, count: outputByteCount)
        // Memory needed is about 128·r·N (+128·r·p); allow that plus headroom, capped at 2 GiB.
        let needed = 128 * UInt64(r) * (n + UInt64(p) + 2)
        guard needed <= 2 << 30 else { throw CryptoError(.invalidParameter, "scrypt parameters need more than 2 GiB") }
        let status = withBytes(password) { pass in
            withBytes(salt) { saltBytes in
                output.withUnsafeMutableBufferPointer { out in
                    tollgate_scrypt_derive(
                        context.pointer,
                        pass.baseAddress?.assumingMemoryBound(to: UInt8.self), pass.count,
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), saltBytes.count,
                        n, r, p, needed + (1 << 20),
                        out.baseAddress, out.count)
                }
            }
        }
        guard status == 1 else { throw CryptoError.openSSL("EVP_KDF_derive(SCRYPT)") }
        return output
    }

    /// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2) with `iterations` rounds: SCRAM-SHA-256's `Hi()` (RFC 7677),
    /// which PostgreSQL's authentication uses.
    /// - Throws: `CryptoError.invalidParameter` for iterations or an output length out of range, `.openSSLFailure`.
    public static func pbkdf2SHA256(
        password: some ContiguousBytes, salt: some ContiguousBytes,
        iterations: Int, outputByteCount: Int
    ) throws -> [UInt8] {
        guard (1...Int(Int32.max)).contains(iterations), (1...1024).contains(outputByteCount) else {
            throw CryptoError(.invalidParameter, "PBKDF2 parameters out of range (iterations=\(iterations), length=\(outputByteCount))")
        }
        ERR_clear_error()
        var output = [UInt8](repeating: 0, count: outputByteCount)
        let status = withBytes(password) { pass in
            withBytes(salt) { saltBytes in
                output.withUnsafeMutableBufferPointer { out in
                    PKCS5_PBKDF2_HMAC(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(clamping: pass.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(clamping: saltBytes.count),
                        Int32(iterations), EVP_sha256(), Int32(out.count), out.baseAddress)
                }
            }
        }
        guard status == 1 else { throw CryptoError.openSSL("PKCS5_PBKDF2_HMAC") }
        return output
    }

    /// Owns an `EVP_KDF` and its `EVP_KDF_CTX` for one derivation.
    private final class KDFContext {
        let kdf: OpaquePointer
        let pointer: OpaquePointer

        init(algorithm: String) throws {
            ERR_clear_error()
            guard let kdf = EVP_KDF_fetch(nil, algorithm, nil) else { throw CryptoError.openSSL("EVP_KDF_fetch(\(algorithm))") }
            guard let pointer = EVP_KDF_CTX_new(kdf) else {
                EVP_KDF_free(kdf)
                throw CryptoError.openSSL("EVP_KDF_CTX_new")
            }
            self.kdf = kdf
            self.pointer = pointer
        }

        deinit {
            EVP_KDF_CTX_free(pointer)
            EVP_KDF_free(kdf)
        }
    }
}
