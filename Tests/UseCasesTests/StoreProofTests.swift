import Domain
import Foundation
import Testing

@testable import UseCases

/// Which store proofs prove the account holding a purchase (API.md "Who may act for an account",
/// item 5): what only the buyer's device holds; a bare transaction id or a family-shared
/// transaction proves the purchase only.
@Suite("Store proofs")
struct StoreProofTests {
    static let snapshot = PurchaseSnapshot(
        platform: .appStore, externalID: "1", productID: "p", status: .active, expiresAt: nil, observedAt: Date(timeIntervalSince1970: 0))

    @Test("A receipt, a PURCHASED signed transaction and a Play token prove the holder; a bare id and a FAMILY_SHARED one do not")
    func provesHolder() {
        let purchased = VerifiedStorePurchase(snapshot: Self.snapshot)
        var shared = VerifiedStorePurchase(snapshot: Self.snapshot)
        shared.isFamilyShared = true
        #expect(ClaimStorePurchase.Proof.appStoreSignedTransaction("jws").provesHolder(purchased))
        #expect(!ClaimStorePurchase.Proof.appStoreSignedTransaction("jws").provesHolder(shared))
        #expect(!ClaimStorePurchase.Proof.appStoreTransactionID("1").provesHolder(purchased))
        #expect(ClaimStorePurchase.Proof.appStoreReceipt("MII").provesHolder(purchased))
        #expect(ClaimStorePurchase.Proof.appStoreReceiptTransaction(receipt: "MII", transactionID: "1").provesHolder(purchased))
        #expect(ClaimStorePurchase.Proof.play(purchaseToken: "t", sku: "s").provesHolder(purchased))
    }
}
