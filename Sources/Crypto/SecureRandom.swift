internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
public enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: `CryptoError.randomFailure` if the generator fails, `.invalidParameter` for a negative count.
    public static func bytes(count: Int) throws -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw CryptoError(.invalidParameter, "random byte count \(count) is out of range")
        }
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let status = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard status == 1 else { throw CryptoError.openSSL(.randomFailure, "RAND_bytes") }
        return out
    }
}
