import Crypto

/// Seals the App Store receipts kept for verifyReceipt-only deployments
/// (`AppStoreReceiptRepository`): AES-256-GCM under a key derived from `secret_key`, each box
/// bound to its purchase's row, so a copy of the database alone reveals no receipt.
public struct AppStoreReceiptVault: Sendable {
    private let key: [UInt8]

    public init(secrets: DomainSecrets) {
        key = secrets.appStoreReceiptKey
    }

    /// Seals `receipt` (base64, as the app sent it) for the purchase `purchaseID`.
    /// - Throws: `CryptoError`.
    public func seal(_ receipt: String, purchaseID: String) throws -> [UInt8] {
        try AESGCM.seal(Array(receipt.utf8), key: key, associatedData: Array(purchaseID.utf8))
    }

    /// Opens a sealed receipt.
    /// - Throws: `CryptoError` when the box was tampered with or belongs to another purchase.
    public func open(_ sealed: [UInt8], purchaseID: String) throws -> String {
        String(decoding: try AESGCM.open(sealed, key: key, associatedData: Array(purchaseID.utf8)), as: UTF8.self)
    }
}
