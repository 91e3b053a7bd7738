import Crypto

/// The short public id of a `secret_keys` entry: the first 8 hex digits of the SHA-256 of a key
/// derived for nothing else, so the id reveals nothing about the key or the keys it derives.
public enum KeyID {
    /// Characters in an id.
    public static let length = 8

    static func make(from derived: [UInt8]) -> String {
        let digest = (try? SHA256.hash(derived)) ?? derived
        return String(Hex.encode(digest).prefix(length))
    }

    /// Whether `text` has the shape of an id (8 lowercase hex digits).
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// AES-256-GCM boxes under the keys of `secret_keys`. A box has the form of the release before key
/// ids (that release, serving beside this one during an upgrade, still opens it); the id of the
/// key that sealed it (`DomainSecrets.keyID`) is stored beside it, in a column of its row.
/// Opening tries the key that id names first, then every listed key, oldest first, so a box from
/// before key ids (no id) opens under whichever listed key sealed it and nothing is lost.
public enum KeyedBox {
    /// Which derived key of a `DomainSecrets` a box uses (`\.codeEncryptionKey`, ...).
    public typealias Purpose = any KeyPath<DomainSecrets, [UInt8]> & Sendable

    /// Seals `plaintext` under the current key's `purpose` key, bound to `associatedData`; store
    /// `secrets.keyID` beside it.
    /// - Throws: `CryptoError`.
    public static func seal(_ plaintext: [UInt8], secrets: DomainSecrets, purpose: Purpose, associatedData: [UInt8]) throws -> [UInt8] {
        try AESGCM.seal(plaintext, key: secrets[keyPath: purpose], associatedData: associatedData)
    }

    /// Opens `sealed` under the listed key `keyID` names, else under any listed key.
    /// - Throws: `CryptoError` when no listed key opens it (tampered, another row's, or a dropped key's).
    public static func open(
        _ sealed: [UInt8], keyID: String? = nil, secrets: DomainSecrets, purpose: Purpose, associatedData: [UInt8]
    ) throws -> [UInt8] {
        let named = keyID.flatMap { secrets.key(id: $0) }
        let others = secrets.all.reversed().filter { $0.keyID != named?.keyID }
        var failure: (any Error)?
        for key in (named.map { [$0] } ?? []) + others {
            do {
                return try AESGCM.open(sealed, key: key[keyPath: purpose], associatedData: associatedData)
            } catch {
                failure = error
            }
        }
        throw failure ?? DomainError(.corrupt, "no key is listed")
    }
}
