import Crypto

/// Opaque bearer tokens: 32 random bytes (256 bits) as 43 base64url characters.
public enum OpaqueToken {
    /// Random bytes per token.
    public static let byteCount = 32

    /// A new URL-safe token of 256 bits.
    /// - Throws: `CryptoError.randomFailure` if the generator fails.
    public static func generate() throws -> String {
        encode(try SecureRandom.bytes(count: byteCount))
    }

    /// The token for `byteCount` random bytes drawn elsewhere (with other random values at once).
    public static func encode(_ randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count == byteCount, "an opaque token takes \(byteCount) random bytes")
        return Base64URL.encode(randomBytes)
    }
}
