import Foundation
internal import COpenSSL

/// SHA-256, one-shot or streaming. A value type: copying a hasher forks its state.
public struct SHA256: Sendable {
    /// The digest length in bytes.
    public static let byteCount = 32

    // SHA256_CTX is a plain C struct without pointers, so copying it is copying the state.
    private var context = SHA256_CTX()

    /// Starts a new hash.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL cannot initialise the state.
    public init() throws {
        guard tollgate_sha256_init(&context) == 1 else { throw CryptoError.openSSL("SHA256_Init") }
    }

    /// Feeds more bytes into the hash.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public mutating func update(_ data: some ContiguousBytes) throws {
        let status = data.withUnsafeBytes { tollgate_sha256_update(&context, $0.baseAddress, $0.count) }
        guard status == 1 else { throw CryptoError.openSSL("SHA256_Update") }
    }

    /// Returns the digest of everything fed so far (the hasher itself is left untouched).
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public func finalize() throws -> [UInt8] {
        var copy = context
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        let status = digest.withUnsafeMutableBufferPointer { tollgate_sha256_final($0.baseAddress, &copy) }
        guard status == 1 else { throw CryptoError.openSSL("SHA256_Final") }
        return digest
    }

    /// The SHA-256 digest of `data`.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public static func hash(_ data: some ContiguousBytes) throws -> [UInt8] {
        var hasher = try SHA256()
        try hasher.update(data)
        return try hasher.finalize()
    }
}
