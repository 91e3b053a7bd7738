import Crypto

/// Turns redemption codes into what is stored: an HMAC for lookup (a copy of the database
/// cannot be searched for a code) and an AES-256-GCM box so a live code can be shown again
/// on a refresh of the success page.
public struct CodeVault: Sendable {
    private let hashKey: HMACSHA256
    private let encryptionKey: [UInt8]

    public init(secrets: DomainSecrets) throws {
        hashKey = try HMACSHA256(key: secrets.codeHashKey)
        encryptionKey = secrets.codeEncryptionKey
    }

    /// The lookup hash of a code (hex of HMAC-SHA256 over its canonical form).
    public func hash(_ code: RedemptionCode) throws -> String {
        Hex.encode(try hashKey.authenticationCode(for: Array(code.canonical.utf8)))
    }

    /// Seals the code, bound to its row id so a box cannot be moved to another row.
    public func seal(_ code: RedemptionCode, codeID: String) throws -> [UInt8] {
        try AESGCM.seal(Array(code.canonical.utf8), key: encryptionKey, associatedData: Array(codeID.utf8))
    }

    /// Opens a sealed code.
    /// - Throws: `CryptoError` when the box was tampered with or belongs to another row.
    public func open(_ sealed: [UInt8], codeID: String) throws -> RedemptionCode {
        let bytes = try AESGCM.open(sealed, key: encryptionKey, associatedData: Array(codeID.utf8))
        guard let code = RedemptionCode(normalizing: String(decoding: bytes, as: UTF8.self)) else {
            throw DomainError(.corrupt, "sealed code \(codeID) does not hold a code")
        }
        return code
    }
}
