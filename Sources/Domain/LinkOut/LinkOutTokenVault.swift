import Crypto

/// Turns a platform's link-out token into what is stored: a keyed hash to find its row (a copy of
/// the database cannot be searched for a token) and an AES-256-GCM box, bound to the row, from
/// which a report reads it back.
public struct LinkOutTokenVault: Sendable {
    private let hashKey: HMACSHA256
    private let encryptionKey: [UInt8]

    public init(secrets: DomainSecrets) throws {
        hashKey = try HMACSHA256(key: secrets.linkOutTokenHashKey)
        encryptionKey = secrets.linkOutTokenKey
    }

    /// The lookup hash of a token (hex of HMAC-SHA256 over its bytes).
    public func hash(_ token: String) throws -> String {
        Hex.encode(try hashKey.authenticationCode(for: Array(token.utf8)))
    }

    /// Seals the token, bound to its row id.
    public func seal(_ token: String, tokenID: String) throws -> [UInt8] {
        try AESGCM.seal(Array(token.utf8), key: encryptionKey, associatedData: Array(tokenID.utf8))
    }

    /// Opens a sealed token.
    /// - Throws: `CryptoError` when the box was tampered with or belongs to another row.
    public func open(_ sealed: [UInt8], tokenID: String) throws -> String {
        String(decoding: try AESGCM.open(sealed, key: encryptionKey, associatedData: Array(tokenID.utf8)), as: UTF8.self)
    }
}
