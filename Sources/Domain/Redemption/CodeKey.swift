import Crypto

/// A code as the app sent it, normalized and hashed once: every lookup of one redemption (the
/// memory of recent repeats, the reader, the writer) uses this key, never the text again.
/// Two keys are equal when their hashes are (the hash is the code's).
public struct CodeKey: Sendable, Hashable {
    public let code: RedemptionCode
    /// `CodeVault.hash` of `code`: what `redemption_codes.code_sha256` holds.
    public let hash: String
    private let vault: CodeVault

    /// Nil when `text` is not a code (`invalid_code` without a lookup).
    /// - Throws: `CryptoError` when hashing fails.
    public init?(normalizing text: String, vault: CodeVault) throws {
        guard let code = RedemptionCode(normalizing: text) else { return nil }
        self.code = code
        self.vault = vault
        hash = try vault.hash(code)
    }

    /// `CodeVault.legacyHashes` of `code`: how rows written before key ids are found until
    /// `tollgate keys rotate` has moved them. Computed when asked (an HMAC per listed key): only
    /// a lookup that missed by `hash` needs them, and a repeat the memory knows needs none.
    /// - Throws: `CryptoError`.
    public func legacyHashes() throws -> [String] {
        try vault.legacyHashes(code)
    }

    public static func == (lhs: CodeKey, rhs: CodeKey) -> Bool { lhs.hash == rhs.hash }

    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
