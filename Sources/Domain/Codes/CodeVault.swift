import Crypto

/// Turns redemption codes into what is stored: a SHA-256 for lookup (a code has more than 80
/// random bits, so its hash needs no key and a key rotation has nothing to re-key) and an
/// AES-256-GCM box (`KeyedBox`, its key's id in `code_key_id`) so a live code can be shown again on a
/// refresh of the success page (`code_sha256`). Rows written before key ids have only
/// `code_hash`, an HMAC under the key of their time: they are still found by `legacyHashes` until
/// `tollgate keys rotate` fills their SHA-256 in. New rows keep `code_hash` (`keyedHash`) for the
/// previous release, which may serve beside this one during an upgrade.
public struct CodeVault: Sendable {
    private let secrets: DomainSecrets
    /// The HMAC of each listed key, its key schedule computed once (every lookup hashes under each).
    private let legacyKeys: [HMACSHA256]

    public init(secrets: DomainSecrets) throws {
        self.secrets = secrets
        legacyKeys = try secrets.all.map { try HMACSHA256(key: $0.codeHashKey) }
    }

    /// The id of the key `seal` seals under: stored beside each box.
    public var keyID: String { secrets.keyID }

    /// The lookup hash of a code (hex of SHA-256 over its canonical form).
    public func hash(_ code: RedemptionCode) throws -> String {
        Self.hash(canonical: code.canonical)
    }

    static func hash(canonical: String) -> String {
        Hex.encode((try? SHA256.hash(Array(canonical.utf8))) ?? [])
    }

    /// What the previous release looked a code up by (`code_hash`): the HMAC under the current key.
    /// - Throws: `CryptoError`.
    public func keyedHash(_ code: RedemptionCode) throws -> String {
        Hex.encode(try HMACSHA256.authenticationCode(for: Array(code.canonical.utf8), key: secrets.codeHashKey))
    }

    /// The hashes rows written before this release hold for `code`: the HMAC under each listed key.
    /// - Throws: `CryptoError`.
    public func legacyHashes(_ code: RedemptionCode) throws -> [String] {
        let bytes = Array(code.canonical.utf8)
        return try legacyKeys.map { Hex.encode(try $0.authenticationCode(for: bytes)) }
    }

    /// Seals the code, bound to its row id so a box cannot be moved to another row.
    public func seal(_ code: RedemptionCode, codeID: String) throws -> [UInt8] {
        try KeyedBox.seal(Array(code.canonical.utf8), secrets: secrets, purpose: \.codeEncryptionKey, associatedData: Array(codeID.utf8))
    }

    /// Opens a sealed code (under the listed key `keyID` names, else any listed key).
    /// - Throws: `CryptoError` when the box was tampered with, belongs to another row, or no listed key opens it.
    public func open(_ sealed: [UInt8], codeID: String, keyID: String? = nil) throws -> RedemptionCode {
        let bytes = try KeyedBox.open(sealed, keyID: keyID, secrets: secrets, purpose: \.codeEncryptionKey, associatedData: Array(codeID.utf8))
        guard let code = RedemptionCode(normalizing: String(decoding: bytes, as: UTF8.self)) else {
            throw DomainError(.corrupt, "sealed code \(codeID) does not hold a code")
        }
        return code
    }
}
