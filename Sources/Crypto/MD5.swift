import Foundation
internal import COpenSSL

/// MD5, only for legacy protocols that still require it (PostgreSQL's `md5` password
/// authentication). Broken for collision resistance: never use it to protect anything new.
public enum MD5 {
    /// The digest length in bytes.
    public static let byteCount = 16

    /// The MD5 digest of `data`.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure (MD5 unavailable, e.g. FIPS mode).
    public static func hash(_ data: some ContiguousBytes) throws -> [UInt8] {
        ERR_clear_error()
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = withBytes(data) { input in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_md5(), nil)
            }
        }
        guard status == 1, length == UInt32(byteCount) else { throw CryptoError.openSSL("EVP_Digest(MD5)") }
        return Array(digest.prefix(byteCount))
    }
}
