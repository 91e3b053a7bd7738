import Domain
import Foundation
import Testing

@testable import UseCases

/// Which purchase a `/receipts` caller's `store_product_id` names, without HTTP or a store.
@Suite("store_product_id names the purchase")
struct StoreProductIDTests {
    static func snapshot(_ externalID: String, _ productID: String) -> PurchaseSnapshot {
        PurchaseSnapshot(
            platform: .appStore, externalID: externalID, productID: productID, status: .active, expiresAt: nil,
            observedAt: Date(timeIntervalSince1970: 0))
    }

    static let receipt = VerifiedStorePurchase(
        snapshot: snapshot("10", "com.example.monthly"), alongside: [snapshot("20", "com.example.lifetime"), snapshot("30", "com.example.coins")])

    @Test("None, or the purchase's own product or alias: the purchase unchanged")
    func unchanged() throws {
        #expect(try Self.receipt.naming(storeProductID: nil, of: "the receipt") == Self.receipt)
        #expect(try Self.receipt.naming(storeProductID: "com.example.monthly", of: "the receipt") == Self.receipt)
        let stripe = VerifiedStorePurchase(snapshot: Self.snapshot("sub_1", "price_monthly"), productAliases: ["prod_pro"])
        #expect(try stripe.naming(storeProductID: "prod_pro", of: "sub_1") == stripe)
    }

    @Test("Another purchase of the receipt becomes the answer; the rest, the newest included, stay alongside in order")
    func picksFromReceipt() throws {
        let named = try Self.receipt.naming(storeProductID: "com.example.coins", of: "the receipt")
        #expect(named.snapshot.externalID == "30")
        #expect(named.alongside.map(\.externalID) == ["10", "20"])
    }

    @Test("A product of none of them is unprocessable, naming the asked id and every held one once")
    func refused() throws {
        let stripe = VerifiedStorePurchase(snapshot: Self.snapshot("sub_1", "price_monthly"), productAliases: ["prod_pro", "prod_pro"])
        #expect {
            try stripe.naming(storeProductID: "prod_other", of: "sub_1")
        } throws: { error in
            (error as? UseCaseError)?.message
                == "store_product_id prod_other is not the product of sub_1 (price_monthly, prod_pro); nothing was recorded."
        }
    }
}
