import Crypto

/// Keyed, stable pseudonyms for internal ids: HMAC-SHA256(secret_key, id).
///
/// Used where a store needs an account reference that must not reveal the id (Google's
/// `obfuscatedExternalAccountId`, Apple's `appAccountToken`).
public struct ObfuscatedID: Sendable {
    private let mac: HMACSHA256

    /// Prepares the keyed function.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL fails.
    public init(secretKey: [UInt8]) throws {
        mac = try HMACSHA256(key: secretKey)
    }

    /// The full 32-byte MAC as 43 base64url characters (fits Google's 64-character limit).
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL fails.
    public func string(for id: String) throws -> String {
        Base64URL.encode(try mac.authenticationCode(for: Array(id.utf8)))
    }

    /// The first 16 MAC bytes as a lowercase RFC 4122 UUID string with the version set to 4 and the
    /// variant to 10xx (so any UUID validator accepts it; 122 bits of the MAC remain).
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL fails.
    public func uuid(for id: String) throws -> String {
        var bytes = Array(try mac.authenticationCode(for: Array(id.utf8)).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array(Hex.encode(bytes))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }
}
