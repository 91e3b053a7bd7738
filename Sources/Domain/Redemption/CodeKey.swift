import Crypto

/// A code as the app sent it, normalized and hashed once: every lookup of one redemption (the
/// memory of recent repeats, the reader, the writer) uses this key, never the text again.
public struct CodeKey: Sendable, Hashable {
    public let code: RedemptionCode
    /// `CodeVault.hash` of `code`: what `redemption_codes.code_sha256` holds.
    public let hash: String
    /// `CodeVault.legacyHashes` of `code`: how rows written before key ids are found until
    /// `tollgate keys rotate` has moved them.
    public let legacyHashes: [String]

    /// Nil when `text` is not a code (`invalid_code` without a lookup).
    /// - Throws: `CryptoError` when hashing fails.
    public init?(normalizing text: String, vault: CodeVault) throws {
        guard let code = RedemptionCode(normalizing: text) else { return nil }
        self.code = code
        hash = try vault.hash(code)
        legacyHashes = try vault.legacyHashes(code)
    }
}
