import Crypto

/// Keys derived from the configured `secret_key` with HKDF-SHA256, one per purpose, so no key
/// is used for two jobs and the secret itself is never used directly. With `secret_keys` (a list,
/// newest first) the properties are the newest key's (what seals, signs and keys from now on) and
/// `previous` holds the older keys' derivations, which still open and verify (`KeyedBox`).
public struct DomainSecrets: Sendable {
    /// The short public id of this key (`KeyID`): recorded beside what it seals or signs.
    public let keyID: String
    /// The older keys of `secret_keys`, newest first (empty with one key).
    public let previous: [DomainSecrets]
    /// HMAC key for the hashes of redemption codes.
    public let codeHashKey: [UInt8]
    /// AES-256-GCM key that keeps live codes readable for a refresh of the success page.
    public let codeEncryptionKey: [UInt8]
    /// AES-256-GCM key for outbox parameters (emails carry codes and links until sent).
    public let mailParameterKey: [UInt8]
    /// AES-256-GCM key for stored `Idempotency-Key` replies (they carry codes and tokens).
    public let idempotencyReplyKey: [UInt8]
    /// HMAC key of the CSRF tokens in the web account's forms (`FormTokens`).
    public let formTokenKey: [UInt8]
    /// HMAC key of the stored 6-digit sign-in codes (`SignInCodeRepository`): a copy of the
    /// database alone cannot try the million codes.
    public let signInCodeKey: [UInt8]
    /// AES-256-GCM key of the stored link-out tokens (Apple's external purchase tokens, Google's
    /// external transaction tokens): they are reported later, so kept sealed, never plain.
    public let linkOutTokenKey: [UInt8]
    /// HMAC key of the lookup hash of those tokens (one row per token, found without the token).
    public let linkOutTokenHashKey: [UInt8]
    /// AES-256-GCM key of the console operators' TOTP secrets (`OperatorRepository`): sealed at
    /// rest like every other secret.
    public let operatorTOTPKey: [UInt8]
    /// Derives `obfuscated_account_id` values.
    public let obfuscatedIDs: ObfuscatedID
    /// AES-256-GCM key of the App Store receipts kept where verifyReceipt is the only way to ask
    /// Apple (`AppStoreReceiptVault`): the reconciler verifies them again, so they are kept sealed.
    public let appStoreReceiptKey: [UInt8]

    /// - Throws: `CryptoError` when key derivation fails.
    public init(secretKey: String) throws {
        try self.init(single: secretKey, previous: [])
    }

    /// The derivations of `secret_keys` (newest first): the first is current, the rest `previous`.
    /// - Throws: `CryptoError` when key derivation fails; `DomainError(.invalid)` for an empty list.
    public init(secretKeys: [String]) throws {
        guard let current = secretKeys.first else { throw DomainError(.invalid, "secret_keys is empty") }
        try self.init(single: current, previous: secretKeys.dropFirst().map { try DomainSecrets(secretKey: $0) })
    }

    /// Every listed key, newest first (`self` then `previous`).
    public var all: [DomainSecrets] { [self] + previous }

    /// The listed key whose id is `keyID`, if any.
    public func key(id keyID: String) -> DomainSecrets? {
        all.first { $0.keyID == keyID }
    }

    private init(single secretKey: String, previous: [DomainSecrets]) throws {
        self.previous = previous
        let material = Array(secretKey.utf8)
        func derive(_ purpose: String) throws -> [UInt8] {
            try KDF.hkdfSHA256(inputKeyMaterial: material, salt: Array("tollgate".utf8), info: Array(purpose.utf8), outputByteCount: 32)
        }
        codeHashKey = try derive("redemption-code-hash")
        codeEncryptionKey = try derive("redemption-code-encryption")
        mailParameterKey = try derive("mail-parameters")
        idempotencyReplyKey = try derive("idempotency-replies")
        formTokenKey = try derive("form-tokens")
        signInCodeKey = try derive("web-sign-in-code")
        linkOutTokenKey = try derive("link-out-token-encryption")
        linkOutTokenHashKey = try derive("link-out-token-hash")
        operatorTOTPKey = try derive("operator-totp-encryption")
        obfuscatedIDs = try ObfuscatedID(secretKey: try derive("obfuscated-account-id"))
        appStoreReceiptKey = try derive("app-store-receipt-encryption")
        keyID = KeyID.make(from: try derive("key-id"))
    }
}
