import Crypto

/// Turns a platform's link-out token into what is stored: a SHA-256 to find its row (a platform
/// token has far more than 80 random bits, and an unrecognized row's external id is stored beside
/// it anyway, so the hash needs no key and a key rotation has nothing to re-key) and an
/// AES-256-GCM box (`KeyedBox`, its key's id in `token_key_id`), bound to the row, from which a report
/// reads it back. Rows written before key ids hold an HMAC under the key of their time
/// (`legacyHashes`) until `tollgate keys rotate` moves them.
public struct LinkOutTokenVault: Sendable {
    private let secrets: DomainSecrets

    public init(secrets: DomainSecrets) throws {
        self.secrets = secrets
    }

    /// The id of the key `seal` seals under: stored beside each box.
    public var keyID: String { secrets.keyID }

    /// The lookup hash of a token (hex of SHA-256 over its bytes).
    public func hash(_ token: String) throws -> String {
        Hex.encode(try SHA256.hash(Array(token.utf8)))
    }

    /// The hashes rows written before this release hold for `token`: the HMAC under each listed key.
    /// - Throws: `CryptoError`.
    public func legacyHashes(_ token: String) throws -> [String] {
        try secrets.all.map { Hex.encode(try HMACSHA256.authenticationCode(for: Array(token.utf8), key: $0.linkOutTokenHashKey)) }
    }

    /// Seals the token, bound to its row id.
    public func seal(_ token: String, tokenID: String) throws -> [UInt8] {
        try KeyedBox.seal(Array(token.utf8), secrets: secrets, purpose: \.linkOutTokenKey, associatedData: Array(tokenID.utf8))
    }

    /// Opens a sealed token (under any listed key).
    /// - Throws: `CryptoError` when the box was tampered with, belongs to another row, or no listed key opens it.
    public func open(_ sealed: [UInt8], tokenID: String, keyID: String? = nil) throws -> String {
        String(
            decoding: try KeyedBox.open(sealed, keyID: keyID, secrets: secrets, purpose: \.linkOutTokenKey, associatedData: Array(tokenID.utf8)),
            as: UTF8.self)
    }
}
