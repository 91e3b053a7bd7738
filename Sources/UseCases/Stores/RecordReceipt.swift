import Domain
import Foundation
import Storage

/// `POST /receipts`: a partner backend reports a purchase for one of its users. The purchase is
/// verified with its store, then in one transaction stored (idempotent on platform + store id),
/// the `user_id`'s account found or created, the purchase linked to it by the other-user policy,
/// and the attribution stored (first report wins). A repeat creates nothing new. A receipt
/// (`receipt_data`) records every purchase in it: the answer names the newest, and the others
/// are linked to the same account (`PurchaseClaim.claimAlongside`).
public struct RecordReceipt: Sendable {
    /// Where the purchase was made and how it is looked up.
    public enum Source: Sendable, Equatable {
        /// App Store Server API lookup (`original_transaction_id`); `productID`
        /// (`store_product_id`), when given, must be its product.
        case appStoreTransaction(String, productID: String?)
        /// verifyReceipt (`receipt_data`); `productID`, when given, names which of the receipt's
        /// purchases the answer is about and must be one of them.
        case appStoreReceipt(String, productID: String?)
        /// Play Developer API (`purchase_token` + `store_product_id`).
        case playStore(token: String, productID: String)
        /// Stripe subscription (`stripe_object_type: subscription`, `stripe_object_id: sub_...`);
        /// `priceID` (`stripe_price_id`), when given, must be its price; `productID`
        /// (`store_product_id`) its price or the price's product (`prod_...`).
        case stripeSubscription(String, priceID: String?, productID: String?)
        /// Stripe Checkout Session (`stripe_object_type: checkout_session`, `stripe_object_id: cs_...`):
        /// its subscription or payment intent is recorded; `priceID` and `productID` as for a subscription.
        case stripeCheckoutSession(String, priceID: String?, productID: String?)

        var isStripe: Bool {
            switch self {
            case .stripeSubscription, .stripeCheckoutSession: true
            default: false
            }
        }
    }

    /// The recorded purchase and the account that holds it.
    public struct Recorded: Sendable {
        public let accountID: String
        public let accountSwitched: Bool
        public let purchase: Purchase
        /// The holding account's entitlements.
        public let entitlements: [Entitlement]
    }

    let verifier: StorePurchaseVerifier
    let policy: OtherUserPolicy
    let secrets: DomainSecrets
    let catalog: EntitlementCatalog
    let vouching: StripeVouching
    let events: EventQueue

    public init(
        verifier: StorePurchaseVerifier, policy: OtherUserPolicy, secrets: DomainSecrets, catalog: EntitlementCatalog, vouching: StripeVouching,
        events: EventQueue = .disabled
    ) {
        self.vouching = vouching
        self.events = events
        self.verifier = verifier
        self.policy = policy
        self.secrets = secrets
        self.catalog = catalog
    }

    /// - Throws: `UseCaseError` (`invalid_receipt`, `upstream_unavailable`, `not_configured`,
    ///   `purchase_belongs_to_other_user`, `unprocessable` for a `stripe_price_id` or
    ///   `store_product_id` that is not the purchase's, or for a Stripe object whose price this
    ///   deployment does not offer),
    ///   `StorageError`.
    public func record(_ source: Source, userID: String, attribution: String?, now: Date) async throws -> Recorded {
        let verified: VerifiedStorePurchase
        switch source {
        case .appStoreTransaction(let id, let productID):
            verified = try await verifier.appStore(transactionID: id).naming(storeProductID: productID, of: "transaction \(id)")
        case .appStoreReceipt(let receipt, let productID):
            verified = try await verifier.appStore(receiptBase64: receipt).naming(storeProductID: productID, of: "the receipt")
        case .playStore(let token, let productID): verified = try await verifier.playStore(purchaseToken: token, productID: productID)
        case .stripeSubscription(let id, let priceID, let productID):
            verified = try await verifier.stripe(subscriptionID: id).naming(storeProductID: productID, of: id)
            try Self.check(priceID: priceID, of: id, verified)
        case .stripeCheckoutSession(let id, let priceID, let productID):
            verified = try await verifier.stripe(checkoutSessionID: id).naming(storeProductID: productID, of: id)
            try Self.check(priceID: priceID, of: id, verified)
        }
        let vouching = self.vouching
        let isStripe = source.isStripe
        do {
            return try await record(verified, userID: userID, attribution: attribution, now: now) { connection, applied in
                if isStripe {
                    // A rollback undoes the purchase just applied: nothing of it is kept.
                    try vouching.require(objectID: applied.purchase.externalID, priceID: applied.purchase.productID, known: !applied.created)
                }
            }
        } catch let error as DomainError {
            guard case .notVouched(_, let priceID)? = error.reason else { throw error }
            throw UseCaseError.unprocessable(
                "\(priceID) is not a price this app offers (plans or entitlements); nothing was recorded.")
        }
    }

    /// `stripe_price_id`, when given, must be the price of what Stripe holds.
    private static func check(priceID: String?, of id: String, _ verified: VerifiedStorePurchase) throws {
        if let priceID, priceID != verified.snapshot.productID {
            throw UseCaseError.unprocessable(
                "stripe_price_id \(priceID) is not the price of \(id) (\(verified.snapshot.productID)); nothing was recorded.")
        }
    }

    private func record(
        _ verified: VerifiedStorePurchase, userID: String, attribution: String?, now: Date,
        check: @escaping @Sendable (Connection, PurchaseRepository.Applied) throws -> Void
    ) async throws -> Recorded {
        let policy = self.policy
        let secrets = self.secrets
        let catalog = self.catalog
        let events = self.events
        return try await verifier.record(verified) { connection, applied in
            try check(connection, applied)
            let outcome: PurchaseClaim.Outcome
            if policy == .switch, let holder = applied.purchase.accountID,
                try AccountRepository.find(appUserID: userID, on: connection) == nil
            {
                // A new app user of a purchase someone holds joins that account: no empty account is made.
                try AccountRepository.link(appUserID: userID, to: holder, on: connection, now: now)
                try events.accountSwitched(appUserID: userID, from: nil, to: holder, purchase: applied.purchase, on: connection, now: now)
                outcome = .held(accountID: holder, switched: true)
            } else {
                let (account, created) = try AccountRepository.findOrCreate(appUserID: userID, secrets: secrets, on: connection, now: now)
                if created { try events.accountCreated(account.id, on: connection, now: now) }
                outcome = try PurchaseClaim.claim(
                    applied.purchase, for: account.id, appUserID: userID, policy: policy, events: events, on: connection, now: now)
            }
            guard case .held(let holder, let switched) = outcome else { throw UseCaseError.purchaseBelongsToOtherUser }
            try PurchaseRepository.setOrigin(
                purchaseID: applied.purchase.id, appUserID: userID, attribution: attribution, email: nil, on: connection)
            for other in try PurchaseClaim.claimAlongside(verified.alongside, for: holder, policy: policy, events: events, on: connection, now: now) {
                try PurchaseRepository.setOrigin(purchaseID: other.id, appUserID: userID, attribution: attribution, email: nil, on: connection)
            }
            let purchases = try PurchaseRepository.forAccount(holder, on: connection)
            return Recorded(
                accountID: holder, accountSwitched: switched, purchase: try PurchaseRepository.require(id: applied.purchase.id, on: connection),
                entitlements: catalog.entitlements(
                    for: purchases, manual: try ManualEntitlementRepository.active(accountID: holder, on: connection, now: now), at: now))
        }
    }
}
