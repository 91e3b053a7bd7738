import Crypto

/// Seals the App Store receipts kept for verifyReceipt-only deployments
/// (`AppStoreReceiptRepository`): AES-256-GCM under a key derived from `secret_keys`' current key
/// (`KeyedBox`, its id in `receipt_key_id`; any listed key opens), each box bound to its purchase's row, so
/// a copy of the database alone reveals no receipt.
public struct AppStoreReceiptVault: Sendable {
    private let secrets: DomainSecrets

    public init(secrets: DomainSecrets) {
        self.secrets = secrets
    }

    /// The id of the key `seal` seals under: stored beside each box.
    public var keyID: String { secrets.keyID }

    /// Seals `receipt` (base64, as the app sent it) for the purchase `purchaseID`.
    /// - Throws: `CryptoError`.
    public func seal(_ receipt: String, purchaseID: String) throws -> [UInt8] {
        try KeyedBox.seal(Array(receipt.utf8), secrets: secrets, purpose: \.appStoreReceiptKey, associatedData: Array(purchaseID.utf8))
    }

    /// Opens a sealed receipt.
    /// - Throws: `CryptoError` when the box was tampered with, belongs to another purchase, or no listed key opens it.
    public func open(_ sealed: [UInt8], purchaseID: String, keyID: String? = nil) throws -> String {
        String(
            decoding: try KeyedBox.open(
                sealed, keyID: keyID, secrets: secrets, purpose: \.appStoreReceiptKey, associatedData: Array(purchaseID.utf8)), as: UTF8.self)
    }
}
