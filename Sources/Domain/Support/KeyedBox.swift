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

/// AES-256-GCM boxes that record the id of the key that sealed them: `tk1:` + key id + the box.
/// Opening picks the listed key by that id; a box sealed before key ids existed (no prefix) opens
/// under whichever listed key opens it, oldest first, so nothing sealed before a release is lost.
public enum KeyedBox {
    static let magic = Array("tk1:".utf8)
    /// Bytes before the AES-GCM box: the marker and the key id.
    public static let headerLength = 4 + KeyID.length

    /// Which derived key of a `DomainSecrets` a box uses (`\.codeEncryptionKey`, ...).
    public typealias Purpose = KeyPath<DomainSecrets, [UInt8]> & Sendable

    /// Seals `plaintext` under the current key's `purpose` key, bound to `associatedData`.
    /// - Throws: `CryptoError`.
    public static func seal(_ plaintext: [UInt8], secrets: DomainSecrets, purpose: Purpose, associatedData: [UInt8]) throws -> [UInt8] {
        magic + Array(secrets.keyID.utf8) + (try AESGCM.seal(plaintext, key: secrets[keyPath: purpose], associatedData: associatedData))
    }

    /// The id recorded in `sealed`, or nil for a box sealed before key ids (or not a box).
    public static func keyID(of sealed: [UInt8]) -> String? {
        guard sealed.count > magic.count + KeyID.length, Array(sealed.prefix(magic.count)) == magic else { return nil }
        let id = String(decoding: sealed[magic.count..<(magic.count + KeyID.length)], as: UTF8.self)
        return KeyID.isWellFormed(id) ? id : nil
    }

    /// Opens `sealed` under the listed key that sealed it (by its id; an unmarked box under any).
    /// - Throws: `CryptoError` when no listed key opens it (tampered, another row's, or a dropped key's).
    public static func open(_ sealed: [UInt8], secrets: DomainSecrets, purpose: Purpose, associatedData: [UInt8]) throws -> [UInt8] {
        try openWithKey(sealed, secrets: secrets, purpose: purpose, associatedData: associatedData).plaintext
    }

    /// Opens `sealed` and says under which key (nil: an unmarked box, which a rotation re-seals).
    /// - Throws: `CryptoError` when no listed key opens it.
    public static func openWithKey(_ sealed: [UInt8], secrets: DomainSecrets, purpose: Purpose, associatedData: [UInt8]) throws
        -> (plaintext: [UInt8], keyID: String?)
    {
        if let id = keyID(of: sealed), let key = secrets.key(id: id),
            let plaintext = try? AESGCM.open(Array(sealed.dropFirst(headerLength)), key: key[keyPath: purpose], associatedData: associatedData)
        {
            return (plaintext, id)
        }
        var failure: (any Error)?
        for key in secrets.all.reversed() {
            do {
                return (try AESGCM.open(sealed, key: key[keyPath: purpose], associatedData: associatedData), nil)
            } catch {
                failure = error
            }
        }
        throw failure ?? DomainError(.corrupt, "no key is listed")
    }
}
