import Foundation
internal import COpenSSL

/// HMAC-SHA1 (RFC 2104), only for protocols that fix it: TOTP (RFC 6238) authenticator apps
/// compute codes with SHA-1. HMAC-SHA1 is still a sound MAC; use HMAC-SHA256 for anything new.
public enum HMACSHA1 {
    /// The MAC length in bytes.
    public static let byteCount = 20

    /// The HMAC-SHA1 of `data` under `key`.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure (SHA-1 unavailable, e.g. FIPS mode).
    public static func authenticationCode(for data: some ContiguousBytes, key: some ContiguousBytes) throws -> [UInt8] {
        ERR_clear_error()
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyBytes = key.withUnsafeBytes { Array($0) }
        let result = data.withUnsafeBytes { input in
            keyBytes.withUnsafeBytes { keyBuffer in
                mac.withUnsafeMutableBufferPointer { out in
                    HMAC(
                        EVP_sha1(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                        input.bindMemory(to: UInt8.self).baseAddress, input.count, out.baseAddress, &length)
                }
            }
        }
        guard result != nil, length == UInt32(byteCount) else { throw CryptoError.openSSL("HMAC(SHA1)") }
        return Array(mac.prefix(byteCount))
    }
}
