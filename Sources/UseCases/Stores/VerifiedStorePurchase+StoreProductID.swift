import Domain

extension VerifiedStorePurchase {
    /// The purchase a caller's `store_product_id` names (`POST /receipts`).
    ///
    /// Without one, or when it is the purchase's product (or one of `productAliases`), the
    /// purchase is unchanged. An App Store receipt holds several purchases: the one of that
    /// product becomes `snapshot` (the answer is about it) and the rest stay `alongside`.
    /// - Parameter reference: how the error names what the caller sent ("transaction 2000…",
    ///   "sub_…", "the receipt").
    /// - Throws: `UseCaseError.unprocessable` naming both products when the id is none of them;
    ///   nothing is recorded.
    func naming(storeProductID: String?, of reference: String) throws -> VerifiedStorePurchase {
        guard let storeProductID, storeProductID != snapshot.productID, !productAliases.contains(storeProductID) else { return self }
        if let index = alongside.firstIndex(where: { $0.productID == storeProductID }) {
            var others = alongside
            let named = others.remove(at: index)
            return VerifiedStorePurchase(snapshot: named, acknowledgement: acknowledgement, alongside: [snapshot] + others, receipt: receipt)
        }
        let held = ([snapshot.productID] + productAliases + alongside.map(\.productID)).filter { !$0.isEmpty }
        var unique: [String] = []
        for id in held where !unique.contains(id) { unique.append(id) }
        throw UseCaseError.unprocessable(
            "store_product_id \(storeProductID) is not the product of \(reference) (\(unique.joined(separator: ", "))); nothing was recorded.")
    }
}
